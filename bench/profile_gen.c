/* bench/profile_gen.c - a synthetic text profile for the profile benchmark.
 *
 *   profile_gen N_FUNCS SEED OUT        (OUT "-" for stdout)
 *
 * Writes N_FUNCS top-level functions in the text syntax of
 * profiles/FORMAT.md, with shapes like those of a large C++ program:
 * Itanium-mangled names of 8 to several hundred bytes, 5-60 body lines per
 * function (some with discriminators, some with call targets), inlined
 * callees nested 1-3 deep, value histograms of all three kinds, static
 * functions carrying !File (some sharing a name across files), checksums
 * and header lines.  About 500 bytes a function, so 500 000 functions make
 * well over 200 MB.
 *
 * The text is formatted by hand into a buffer and written with stdio, never
 * through libsfdo, so generating the input does not depend on the code that
 * is measured.  The output depends only on N_FUNCS and SEED.  Every
 * (name, file) key is unique, so a correct reader reports exactly N_FUNCS
 * functions.  Totals are consistent: a function's total is the sum of its
 * body counts and of its inlinees' totals.
 *
 * The functions are NOT in canonical order (they come in index order with
 * random totals), nor are they required to be: FORMAT.md's canonical order
 * binds writers, and a reader must accept any order (it finalizes).  This
 * makes the benchmark include the reader's sort, as it would for a profile
 * written by another tool (LLVM's writers order functions differently).  */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- random numbers: splitmix64 ------------------------------------------ */

struct rng { uint64_t s; };

static uint64_t
mix64 (uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static uint64_t
rnext (struct rng *r)
{
  r->s += 0x9e3779b97f4a7c15ULL;
  return mix64 (r->s);
}

/* Uniform in [0, n); n > 0.  The modulo bias is irrelevant here.  */
static uint64_t
rbelow (struct rng *r, uint64_t n)
{
  return rnext (r) % n;
}

/* True with probability PERCENT/100.  */
static int
rchance (struct rng *r, unsigned percent)
{
  return rbelow (r, 100) < percent;
}

static double
runit (struct rng *r)
{
  return (double) (rnext (r) >> 11) * (1.0 / 9007199254740992.0);
}

/* An independent stream for (seed, stream, index).  */
static struct rng
rstream (uint64_t seed, uint64_t stream, uint64_t i)
{
  struct rng r = { mix64 (seed ^ mix64 (stream * 0x100000001b3ULL + i)) };
  return r;
}

/* --- an append-only text buffer ------------------------------------------ */

struct buf { char *p; size_t len, cap; };

static void
breserve (struct buf *b, size_t more)
{
  if (b->len + more <= b->cap)
    return;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->len + more)
    cap *= 2;
  char *p = realloc (b->p, cap);
  if (!p)
    {
      fprintf (stderr, "profile_gen: out of memory\n");
      exit (2);
    }
  b->p = p;
  b->cap = cap;
}

static void
bmem (struct buf *b, const char *s, size_t n)
{
  breserve (b, n);
  memcpy (b->p + b->len, s, n);
  b->len += n;
}

static void
bstr (struct buf *b, const char *s)
{
  bmem (b, s, strlen (s));
}

static void
bchar (struct buf *b, char c)
{
  breserve (b, 1);
  b->p[b->len++] = c;
}

static void
bspaces (struct buf *b, unsigned n)
{
  breserve (b, n);
  memset (b->p + b->len, ' ', n);
  b->len += n;
}

static void
bu64 (struct buf *b, uint64_t v)
{
  char tmp[24];
  size_t n = 0;
  do
    tmp[n++] = (char) ('0' + v % 10);
  while ((v /= 10) != 0);
  breserve (b, n);
  while (n)
    b->p[b->len++] = tmp[--n];
}

static void
bi64 (struct buf *b, int64_t v)
{
  if (v < 0)
    {
      bchar (b, '-');
      bu64 (b, (uint64_t) 0 - (uint64_t) v);
    }
  else
    bu64 (b, (uint64_t) v);
}

/* --- names ----------------------------------------------------------------- */

static const char *const words[] = {
  "llvm", "clang", "detail", "impl", "internal", "base", "util", "core",
  "Parser", "Lexer", "Sema", "Node", "Value", "Type", "Builder", "Context",
  "Module", "Function", "Block", "Instr", "Operand", "Pass", "Manager",
  "Analysis", "Visitor", "Printer", "Stream", "Buffer", "String", "Vector",
  "Map", "Set", "Table", "Cache", "Pool", "Allocator", "Handle", "Ref",
  "Iterator", "Range", "Graph", "Edge", "Loop", "Region", "Scope", "Decl",
  "Expr", "Stmt", "Token", "Source", "Location", "Diag", "Option", "Config",
  "Request", "Response", "Session", "Channel", "Socket", "Codec", "Frame",
  "get", "set", "create", "emit", "visit", "handle", "process", "compute",
  "update", "insert", "erase", "find", "lookup", "resolve", "build", "parse",
  "lower", "fold", "simplify", "combine", "select", "schedule", "allocate",
  "release", "flush", "read", "write", "encode", "decode", "hash", "compare",
  "clone", "verify", "dump", "run", "init", "reset", "apply", "merge",
};
#define NWORDS (sizeof words / sizeof words[0])

/* Mangled parameter types, short and long.  */
static const char *const params[] = {
  "v", "i", "j", "l", "m", "b", "d", "f", "c", "PKc", "Pv", "PKv", "Ri",
  "S_", "S0_", "RKS_", "RKS0_", "PS1_", "St8ios_base",
  "RKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
  "St10shared_ptrIS_E", "RKSt6vectorIiSaIiEE", "St17basic_string_viewIcSt11"
  "char_traitsIcEE", "NS_8ArrayRefIjEE", "PFvPvE", "St16initializer_listIiE",
};
#define NPARAMS (sizeof params / sizeof params[0])

static const char *const dirs[] = {
  "lib/Transforms/Scalar", "lib/CodeGen", "lib/Analysis", "lib/IR",
  "src/net", "src/storage", "src/runtime", "src/util", "third_party/zlib",
  "tools/driver", "lib/Support", "src/render",
};
#define NDIRS (sizeof dirs / sizeof dirs[0])

/* Names shared by static functions of different files.  */
static const char *const static_pool[] = {
  "_ZL5usagev", "_ZL7cleanupv", "_ZL9init_oncev", "_ZL8hash_keyPKvm",
  "_ZL10log_messagePKcz", "_ZL9parse_argiPPc", "_ZL7compareRKiS0_",
  "_ZL11error_exitPKc", "_ZL6bufferv", "_ZL12handle_eventi",
  "_ZL8do_writeiPKvm", "_ZL7do_readiPvm", "_ZL5alignm", "_ZL4swapRiS_",
  "_ZL9next_itemP4Node", "_ZL10free_cacheP5Cache",
  "usage", "cleanup", "init_once", "hash_key", "log_message", "parse_arg",
  "compare", "error_exit", "handle_event", "do_write", "do_read", "align",
  "next_item", "free_cache", "dump_state", "check_bounds",
  "_ZL6verifyv", "_ZL5flushP6Stream", "_ZL7encodeiPh", "_ZL7decodePKhPi",
  "_ZL3maxii", "_ZL3minii", "_ZL8is_emptyPKc", "_ZL6lengthPKc",
  "_ZL4hashPKcm", "_ZL6createv", "_ZL7destroyPv", "_ZL5resetv",
  "_ZL4initv", "_ZL6finishv", "_ZL5printPKc", "_ZL9to_stringi",
  "_ZL6insertP4NodeS0_", "_ZL5erasei", "_ZL4findPKci", "_ZL6lookupPKc",
  "_ZL7resolvei", "_ZL5buildv", "_ZL5lowerv", "_ZL4foldv",
  "_ZL8simplifyv", "_ZL7combinev", "_ZL6selectv", "_ZL8schedulev",
  "_ZL8allocatem", "_ZL7releasePv", "_ZL5applyv", "_ZL5mergev",
};
#define NPOOL (sizeof static_pool / sizeof static_pool[0])  /* 64 */

#define FILE_GROUP 16   /* consecutive functions share a source file */

static uint64_t g_seed;

/* Append a source identifier of 1-3 words, optionally with a number.  */
static void
ident (struct buf *b, struct rng *r, int with_number, uint64_t number)
{
  char tmp[160];
  size_t n = 0;
  unsigned nw = 1 + (unsigned) rbelow (r, 3);
  for (unsigned w = 0; w < nw; w++)
    {
      const char *s = words[rbelow (r, NWORDS)];
      size_t l = strlen (s);
      memcpy (tmp + n, s, l);
      n += l;
    }
  if (with_number)
    n += (size_t) snprintf (tmp + n, sizeof tmp - n, "%" PRIu64, number);
  bu64 (b, n);
  bmem (b, tmp, n);
}

/* The name and file of function I into NAME and FILE (FILE empty for a
   global function).  Deterministic in (g_seed, I), so any function can
   name any other as a call target or inlined callee without storage.  */
static void
func_name (uint64_t i, struct buf *name, struct buf *file)
{
  struct rng r = rstream (g_seed, 1, i);
  name->len = 0;
  file->len = 0;
  int is_static = rchance (&r, 12);
  if (is_static)
    {
      uint64_t fidx = i / FILE_GROUP;
      bstr (file, dirs[fidx % NDIRS]);
      bstr (file, "/file_");
      bu64 (file, fidx);
      bstr (file, rchance (&r, 70) ? ".cc" : ".c");
      if (rchance (&r, 40))
        {
          /* A shared name: unique within its file, since the FILE_GROUP
             functions of a file pick distinct residues mod FILE_GROUP.  */
          unsigned k = (unsigned) (i % FILE_GROUP)
                       + FILE_GROUP * (unsigned) rbelow (&r, NPOOL / FILE_GROUP);
          bstr (name, static_pool[k]);
          return;
        }
    }
  unsigned kind = (unsigned) rbelow (&r, 100);
  if (kind < 15)
    {
      /* A C function: plain name.  */
      unsigned nw = 1 + (unsigned) rbelow (&r, 3);
      for (unsigned w = 0; w < nw; w++)
        {
          if (w)
            bchar (name, '_');
          bstr (name, words[rbelow (&r, NWORDS)]);
        }
      bchar (name, '_');
      bu64 (name, i);
      return;
    }
  /* A C++ function: _ZN <nested names> E <params>, or _ZL for statics.  */
  bstr (name, is_static ? "_ZL" : "_ZN");
  unsigned depth = is_static ? 0 : 1 + (unsigned) rbelow (&r, 4);
  unsigned numbered = is_static ? 0 : (unsigned) rbelow (&r, depth + 1);
  for (unsigned d = 0; d < depth; d++)
    {
      ident (name, &r, d == numbered, i);
      if (d + 1 < depth && rchance (&r, 5))
        {
          /* A template argument list on a scope.  */
          bstr (name, "I");
          unsigned na = 1 + (unsigned) rbelow (&r, 3);
          for (unsigned a = 0; a < na; a++)
            bstr (name, params[rbelow (&r, NPARAMS)]);
          bstr (name, "E");
        }
    }
  ident (name, &r, depth == numbered, i);
  if (!is_static)
    bchar (name, 'E');
  if (rchance (&r, 1))
    {
      /* A long template-heavy signature, several hundred bytes.  */
      unsigned reps = 4 + (unsigned) rbelow (&r, 12);
      for (unsigned k = 0; k < reps; k++)
        {
          bstr (name, "NSt3mapIS_");
          bstr (name, params[NPARAMS - 1 - rbelow (&r, 8)]);
          bstr (name, "St4lessIS_ESaISt4pairIKS_S1_EEEE");
        }
    }
  unsigned np = (unsigned) rbelow (&r, 5);
  if (np == 0)
    bchar (name, 'v');
  for (unsigned k = 0; k < np; k++)
    bstr (name, params[rbelow (&r, NPARAMS)]);
}

/* --- function bodies -------------------------------------------------------- */

static uint64_t g_nfuncs;

/* Scratch buffers for names (per recursion depth, since a name is needed
   while a nested body is generated).  */
#define MAXD 8
static struct buf g_body[MAXD], g_name[MAXD], g_file[MAXD];

/* A count around BASE: heavy spread, occasionally zero.  */
static uint64_t
count_near (struct rng *r, uint64_t base)
{
  if (rchance (r, 2))
    return 0;
  double f = 0.05 + 1.95 * runit (r);
  uint64_t c = (uint64_t) ((double) base * f);
  return c ? c : 1;
}

static void
metadata_checksum (struct buf *b, struct rng *r, unsigned indent)
{
  bspaces (b, indent);
  bstr (b, "!CFGChecksum: ");
  bu64 (b, rnext (r) >> (rbelow (r, 2) ? 0 : 16));
  bchar (b, '\n');
}

static void
offset_disc (struct buf *b, uint64_t off, uint64_t disc)
{
  bu64 (b, off);
  if (disc)
    {
      bchar (b, '.');
      bu64 (b, disc);
    }
}

static void
value_histograms (struct buf *b, struct rng *r, unsigned indent,
                  uint64_t maxoff, uint64_t base)
{
  unsigned nh = 1 + (unsigned) rbelow (r, 2);
  for (unsigned h = 0; h < nh; h++)
    {
      bspaces (b, indent);
      bstr (b, "!Values: ");
      offset_disc (b, rbelow (r, maxoff + 1),
                   rchance (r, 20) ? 1 + rbelow (r, 3) : 0);
      unsigned kind = (unsigned) rbelow (r, 3);
      unsigned n = 1 + (unsigned) rbelow (r, 4);
      bstr (b, kind == 0 ? " icall" : kind == 1 ? " divmod" : " memsize");
      uint64_t c = base + 1;
      for (unsigned k = 0; k < n; k++)
        {
          bchar (b, ' ');
          if (kind == 0)
            {
              func_name (rbelow (r, g_nfuncs), &g_name[MAXD - 1],
                         &g_file[MAXD - 1]);
              bmem (b, g_name[MAXD - 1].p, g_name[MAXD - 1].len);
            }
          else if (kind == 1)
            bi64 (b, (int64_t) rbelow (r, 80) - 16);
          else
            bu64 (b, (uint64_t) 1 << rbelow (r, 13));
          bchar (b, ':');
          c = 1 + rbelow (r, c);
          bu64 (b, c);
        }
      bchar (b, '\n');
    }
}

/* Write the lines of a function body at INDENT into g_body[DEPTH] (which
   is cleared first) and return its total.  HEAD is the entry count.  */
static uint64_t
gen_body (struct rng *r, unsigned depth, unsigned indent, uint64_t base,
          uint64_t head, const char *file, size_t file_len)
{
  struct buf *b = &g_body[depth];
  b->len = 0;
  uint64_t total = 0;
  /* 5-60 lines, most functions small; inlinees 2-12.  */
  double u = runit (r);
  unsigned nlines = depth == 0 ? 5 + (unsigned) (56.0 * u * u)
                               : 2 + (unsigned) rbelow (r, 11);
  uint64_t off = 0, disc = 0;
  for (unsigned l = 0; l < nlines; l++)
    {
      if (l == 0)
        off = 0;
      else if (rchance (r, 12))
        disc += 1 + rbelow (r, 2);          /* another block, same line */
      else
        {
          off += 1 + rbelow (r, rchance (r, 10) ? 40 : 3);
          disc = 0;
        }
      uint64_t c = l == 0 ? head : count_near (r, base);
      total += c;
      bspaces (b, indent);
      offset_disc (b, off, disc);
      bstr (b, ": ");
      bu64 (b, c);
      if (rchance (r, 7))
        {
          unsigned nt = rchance (r, 10) ? 3 : 1 + (unsigned) rbelow (r, 2);
          uint64_t left = c;
          for (unsigned t = 0; t < nt; t++)
            {
              func_name (rbelow (r, g_nfuncs), &g_name[depth],
                         &g_file[depth]);
              bchar (b, ' ');
              bmem (b, g_name[depth].p, g_name[depth].len);
              bchar (b, ':');
              uint64_t tc = left ? 1 + rbelow (r, left) : 0;
              left -= tc;
              bu64 (b, tc);
            }
        }
      bchar (b, '\n');
    }
  uint64_t maxoff = off;

  /* Inlined callees, after the body lines (as LLVM writes them).  */
  unsigned ncs = 0;
  if (depth + 1 < 4 && rchance (r, depth == 0 ? 35 : 30))
    ncs = 1 + (unsigned) rbelow (r, depth == 0 ? 3 : 2);
  uint64_t cs_off = 0;
  for (unsigned k = 0; k < ncs; k++)
    {
      cs_off += 1 + rbelow (r, maxoff / (ncs + 1) + 1);
      uint64_t cs_disc = rchance (r, 15) ? 1 + rbelow (r, 4) : 0;
      uint64_t callee = rbelow (r, g_nfuncs);
      func_name (callee, &g_name[depth + 1], &g_file[depth + 1]);
      /* Keep the callee's name and file across the nested call, which
         reuses the scratch buffers of deeper levels.  */
      struct buf cname = { 0 }, cfile = { 0 };
      bmem (&cname, g_name[depth + 1].p, g_name[depth + 1].len);
      bmem (&cfile, g_file[depth + 1].p, g_file[depth + 1].len);
      uint64_t chead = rchance (r, 40) ? 1 + rbelow (r, base + 1) : 0;
      uint64_t ctotal = gen_body (r, depth + 1, indent + 1,
                                  base / 2 + 1, chead, cfile.p, cfile.len);
      total += ctotal;
      b = &g_body[depth];
      bspaces (b, indent);
      offset_disc (b, cs_off, cs_disc);
      bstr (b, ": ");
      bmem (b, cname.p, cname.len);
      bchar (b, ':');
      bu64 (b, ctotal);
      if (chead)
        {
          bchar (b, ':');
          bu64 (b, chead);
        }
      bchar (b, '\n');
      bmem (b, g_body[depth + 1].p, g_body[depth + 1].len);
      free (cname.p);
      free (cfile.p);
    }

  /* Metadata lines of this body, after its callees.  */
  if (rchance (r, depth == 0 ? 30 : 10))
    metadata_checksum (b, r, indent);
  if (file_len)
    {
      bspaces (b, indent);
      bstr (b, "!File: ");
      bmem (b, file, file_len);
      bchar (b, '\n');
    }
  if (depth == 0 && rchance (r, 8))
    value_histograms (b, r, indent, maxoff, base);
  return total;
}

int
main (int argc, char **argv)
{
  if (argc != 4)
    {
      fprintf (stderr, "usage: profile_gen N_FUNCS SEED OUT\n");
      return 2;
    }
  char *end;
  errno = 0;
  uint64_t n = strtoull (argv[1], &end, 10);
  if (errno || *end || n == 0)
    {
      fprintf (stderr, "profile_gen: bad N_FUNCS '%s'\n", argv[1]);
      return 2;
    }
  uint64_t seed = strtoull (argv[2], &end, 10);
  if (errno || *end)
    {
      fprintf (stderr, "profile_gen: bad SEED '%s'\n", argv[2]);
      return 2;
    }
  g_nfuncs = n;
  g_seed = seed;
  const char *path = argv[3];
  FILE *out = strcmp (path, "-") == 0 ? stdout : fopen (path, "w");
  if (!out)
    {
      fprintf (stderr, "profile_gen: %s: %s\n", path, strerror (errno));
      return 1;
    }
  static char obuf[1 << 20];
  setvbuf (out, obuf, _IOFBF, sizeof obuf);

  struct rng hr = rstream (g_seed, 0, 0);
  fprintf (out, "# sfdo-profile: 1\n");
  fprintf (out, "# synthetic profile from bench/profile_gen, %llu functions,"
           " seed %llu\n", (unsigned long long) n,
           (unsigned long long) seed);
  for (int k = 0; k < 2; k++)
    fprintf (out, "# build-id: %016" PRIx64 "%016" PRIx64 "%08" PRIx32 "\n",
             rnext (&hr), rnext (&hr), (uint32_t) rnext (&hr));
  fprintf (out, "# mode: ip\n# mode: lbr\n");
  fprintf (out, "# event: cycles:u period=100003 samples=%" PRIu64 "\n",
           n * 40 + rbelow (&hr, 1000));
  fprintf (out, "# event: INST_RETIRED:ANY_P period=2000003 samples=%" PRIu64
           "\n", n * 3 + rbelow (&hr, 1000));
  fprintf (out, "# tool: sfdo-convert 0.1.0\n# tool: profile_gen\n");
  fprintf (out, "# samples: used=%" PRIu64 " dropped=%" PRIu64 "\n",
           n * 43, n / 10);

  struct buf fline = { 0 };
  uint64_t bytes = 0;
  for (uint64_t i = 0; i < n; i++)
    {
      struct rng r = rstream (g_seed, 2, i);
      /* Heavy-tailed hotness: most functions are cold, a few very hot.  */
      double u = runit (&r);
      uint64_t base = 1 + (uint64_t) exp (u * u * u * 20.0);
      uint64_t head = rchance (&r, 90) ? count_near (&r, base) : 0;
      func_name (i, &g_name[0], &g_file[0]);
      fline.len = 0;
      if (rchance (&r, 1))      /* blank and comment lines are ignored */
        bstr (&fline, rchance (&r, 50) ? "\n" : "# a comment between "
              "functions\n");
      bmem (&fline, g_name[0].p, g_name[0].len);
      struct buf file0 = { 0 };
      bmem (&file0, g_file[0].p, g_file[0].len);
      uint64_t total = gen_body (&r, 0, 1, base, head, file0.p, file0.len);
      free (file0.p);
      bchar (&fline, ':');
      bu64 (&fline, total);
      bchar (&fline, ':');
      bu64 (&fline, head);
      bchar (&fline, '\n');
      if (fwrite (fline.p, 1, fline.len, out) != fline.len
          || fwrite (g_body[0].p, 1, g_body[0].len, out) != g_body[0].len)
        break;
      bytes += fline.len + g_body[0].len;
    }
  if (ferror (out) || fflush (out) != 0 || (out != stdout && fclose (out)))
    {
      fprintf (stderr, "profile_gen: %s: write error: %s\n", path,
               strerror (errno));
      return 1;
    }
  fprintf (stderr, "profile_gen: %" PRIu64 " functions, %.1f MB of function text"
           " in %s\n", n, (double) bytes / 1e6, path);
  return 0;
}
