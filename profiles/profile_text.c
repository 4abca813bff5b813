/* profiles/profile_text.c - the text encoding (FORMAT.md, "Text encoding"):
 * a superset of LLVM's text sample profile.
 *
 * The reader walks the buffer line by line keeping a stack of the functions
 * open at each indentation depth, so nesting costs no recursion and a
 * hostile file cannot exhaust the C stack.  */
#include "profile_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/xalloc.h"

/* --- Reading ---------------------------------------------------------------- */

struct text_reader {
  struct sfdo_profile *p;
  const char *path;
  struct sfdo_error *err;
  const char *line;             /* current line, without its end */
  size_t len;
  uint32_t lineno;
  int seen_function;
  int sfdo_header;              /* "# sfdo-profile: N" came first */
  int llvm;                     /* no such line: LLVM's base discriminators */
  struct sfdo_prof_func *stack[SFDO_PROFILE_MAX_DEPTH + 1];
  size_t depth;                 /* number of open functions */
};

/* A cursor over the current line.  */
struct span {
  const char *s, *end;
};

static enum sfdo_errc
fail_at (struct text_reader *r, const char *where, enum sfdo_errc code,
         const char *msg)
{
  uint32_t col = (uint32_t) (where - r->line) + 1;
  return sfdo_error_set (r->err, code, r->path, SFDO_NO_OFFSET, r->lineno,
                         col, "%s", msg);
}

/* Parse a decimal number of at most MAX at *S, advancing *S.  */
static enum sfdo_errc
parse_u64 (struct text_reader *r, struct span *sp, uint64_t max,
           uint64_t *out)
{
  const char *s = sp->s;
  if (s == sp->end || *s < '0' || *s > '9')
    return fail_at (r, s, SFDO_E_MALFORMED, "expected a number");
  uint64_t v = 0;
  for (; s < sp->end && *s >= '0' && *s <= '9'; s++)
    {
      unsigned d = (unsigned) (*s - '0');
      if (v > (max - d) / 10)
        return fail_at (r, sp->s, SFDO_E_RANGE, "number out of range");
      v = v * 10 + d;
    }
  sp->s = s;
  *out = v;
  return SFDO_OK;
}

static enum sfdo_errc
parse_u32 (struct text_reader *r, struct span *sp, uint32_t *out)
{
  uint64_t v;
  enum sfdo_errc rc = parse_u64 (r, sp, UINT32_MAX, &v);
  *out = (uint32_t) v;
  return rc;
}

/* Parse a signed decimal (for divmod values) into its two's complement.  */
static enum sfdo_errc
parse_i64 (struct text_reader *r, struct span *sp, uint64_t *out)
{
  int neg = sp->s < sp->end && *sp->s == '-';
  sp->s += neg;
  uint64_t v;
  enum sfdo_errc rc = parse_u64 (r, sp, neg ? (uint64_t) INT64_MAX + 1
                                            : (uint64_t) INT64_MAX, &v);
  *out = neg ? (uint64_t) 0 - v : v;
  return rc;
}

static enum sfdo_errc
expect (struct text_reader *r, struct span *sp, const char *lit)
{
  size_t n = strlen (lit);
  if ((size_t) (sp->end - sp->s) < n || memcmp (sp->s, lit, n) != 0)
    {
      char msg[64];
      snprintf (msg, sizeof msg, "expected '%s'", lit);
      return fail_at (r, sp->s, SFDO_E_MALFORMED, msg);
    }
  sp->s += n;
  return SFDO_OK;
}

/* Advance SP past LIT if it starts with it; no error otherwise.  */
static int
starts_with (struct span *sp, const char *lit)
{
  size_t n = strlen (lit);
  if ((size_t) (sp->end - sp->s) < n || memcmp (sp->s, lit, n) != 0)
    return 0;
  sp->s += n;
  return 1;
}

/* Fail unless SP is at the end of the line.  */
static enum sfdo_errc
expect_end (struct text_reader *r, struct span *sp)
{
  if (sp->s != sp->end)
    return fail_at (r, sp->s, SFDO_E_MALFORMED, "junk at the end of the line");
  return SFDO_OK;
}

static void
skip_spaces (struct span *sp)
{
  while (sp->s < sp->end && *sp->s == ' ')
    sp->s++;
}

/* The next space-separated token of SP.  */
static struct span
next_token (struct span *sp)
{
  skip_spaces (sp);
  struct span t = { sp->s, sp->s };
  while (t.end < sp->end && *t.end != ' ')
    t.end++;
  sp->s = t.end;
  return t;
}

static int
all_digits (struct span t)
{
  if (t.s == t.end)
    return 0;
  for (const char *c = t.s; c < t.end; c++)
    if (*c < '0' || *c > '9')
      return 0;
  return 1;
}

static const char *
last_colon (struct span t)
{
  for (const char *c = t.end; c > t.s; c--)
    if (c[-1] == ':')
      return c - 1;
  return NULL;
}

/* Intern the LEN bytes at S as a string of class CLS, or fail at S.  */
static enum sfdo_errc
take_string (struct text_reader *r, const char *s, size_t len,
             enum sfdo_str_class cls, uint32_t *id)
{
  const char *problem = sfdo_profile_string_problem (s, len, cls);
  if (problem)
    {
      char msg[96];
      snprintf (msg, sizeof msg, "this %s %s",
                cls <= SFDO_STR_NAME ? "name" : "text", problem);
      return fail_at (r, s, SFDO_E_MALFORMED, msg);
    }
  *id = sfdo_profile_intern (r->p, s, len);
  return SFDO_OK;
}

/* Parse "NAME:COUNT" in token T.  */
static enum sfdo_errc
parse_name_count (struct text_reader *r, struct span t, uint32_t *name,
                  uint64_t *count)
{
  const char *colon = last_colon (t);
  if (!colon || colon == t.s)
    return fail_at (r, t.s, SFDO_E_MALFORMED, "expected 'NAME:COUNT'");
  struct span num = { colon + 1, t.end };
  enum sfdo_errc rc = parse_u64 (r, &num, UINT64_MAX, count);
  if (rc == SFDO_OK && num.s != t.end)
    rc = fail_at (r, num.s, SFDO_E_MALFORMED, "junk after count");
  if (rc == SFDO_OK)
    rc = take_string (r, t.s, (size_t) (colon - t.s), SFDO_STR_TOKEN, name);
  return rc;
}

/* Parse "OFFSET[.DISCRIMINATOR]".  In LLVM's text the discriminator is a
   base discriminator: it becomes the DWARF discriminator clang writes for
   it, so that every discriminator of the model is the binary's.  */
static enum sfdo_errc
parse_site (struct text_reader *r, struct span *sp, uint32_t *off,
            uint32_t *disc)
{
  enum sfdo_errc rc = parse_u32 (r, sp, off);
  *disc = 0;
  if (rc == SFDO_OK && sp->s < sp->end && *sp->s == '.')
    {
      const char *at = ++sp->s;
      rc = parse_u32 (r, sp, disc);
      if (rc == SFDO_OK && r->llvm && sfdo_llvm_encode_base (*disc, disc))
        return fail_at (r, at, SFDO_E_RANGE,
                        "discriminator over 4095, LLVM's largest base "
                        "discriminator (a text profile without the first "
                        "line '# sfdo-profile: 1' is read as LLVM's)");
    }
  return rc;
}

static enum sfdo_errc
parse_header_line (struct text_reader *r)
{
  struct span sp = { r->line, r->line + r->len };
  struct sfdo_profile *p = r->p;
  if (!starts_with (&sp, "# "))
    return SFDO_OK;             /* a comment */
  struct span key = sp;
  while (sp.s < sp.end && *sp.s != ':')
    sp.s++;
  key.end = sp.s;
  if (sp.end - sp.s < 2 || sp.s[1] != ' ')
    return SFDO_OK;
  sp.s += 2;
  size_t klen = (size_t) (key.end - key.s);
#define KEY_IS(k) (klen == strlen (k) && memcmp (key.s, k, klen) == 0)
  if (KEY_IS ("sfdo-profile"))
    {
      uint64_t v;
      if (parse_u64 (r, &sp, UINT32_MAX, &v) != SFDO_OK)
        return r->err ? r->err->code : SFDO_E_MALFORMED;
      if (v == 0 || v > SFDO_PROFILE_VERSION)
        return fail_at (r, key.end + 2, SFDO_E_VERSION,
                        "unsupported sfdo-profile version (this reader "
                        "knows version 1)");
      p->hdr.version = (uint32_t) v;
      r->sfdo_header = 1;
      return expect_end (r, &sp);
    }
  struct span value = next_token (&sp);
  uint32_t id;
  enum sfdo_errc rc = SFDO_OK;
  if (KEY_IS ("tool") || KEY_IS ("producer"))
    {
      rc = take_string (r, value.s, (size_t) (sp.end - value.s),
                        SFDO_STR_LINE, &id);
      if (rc == SFDO_OK && KEY_IS ("tool"))
        sfdo_profile_add_tool (p, sfdo_profile_str (p, id));
      else if (rc == SFDO_OK)
        sfdo_profile_add_producer (p, sfdo_profile_str (p, id));
      return rc;
    }
  if (KEY_IS ("samples"))
    {
      sp.s = value.s;
      rc = expect (r, &sp, "used=");
      if (rc == SFDO_OK)
        rc = parse_u64 (r, &sp, UINT64_MAX, &p->hdr.samples_used);
      if (rc == SFDO_OK)
        rc = expect (r, &sp, " dropped=");
      if (rc == SFDO_OK)
        rc = parse_u64 (r, &sp, UINT64_MAX, &p->hdr.samples_dropped);
      return rc == SFDO_OK ? expect_end (r, &sp) : rc;
    }
  if (!KEY_IS ("build-id") && !KEY_IS ("mode") && !KEY_IS ("event"))
    return SFDO_OK;             /* a comment that looks like a header */
  rc = take_string (r, value.s, (size_t) (value.end - value.s),
                    SFDO_STR_TOKEN, &id);
  if (rc != SFDO_OK)
    return rc;
  const char *text = sfdo_profile_str (p, id);
  if (KEY_IS ("build-id") || KEY_IS ("mode"))
    {
      skip_spaces (&sp);
      rc = expect_end (r, &sp);
      if (rc == SFDO_OK && KEY_IS ("build-id"))
        sfdo_profile_add_build_id (p, text);
      else if (rc == SFDO_OK)
        sfdo_profile_add_mode (p, text);
    }
  else
    {
      uint64_t period = 0, samples = 0;
      rc = expect (r, &sp, " period=");
      if (rc == SFDO_OK)
        rc = parse_u64 (r, &sp, UINT64_MAX, &period);
      if (rc == SFDO_OK)
        rc = expect (r, &sp, " samples=");
      if (rc == SFDO_OK)
        rc = parse_u64 (r, &sp, UINT64_MAX, &samples);
      if (rc == SFDO_OK)
        rc = expect_end (r, &sp);
      if (rc == SFDO_OK)
        sfdo_profile_add_event (p, text, period, samples);
    }
#undef KEY_IS
  return rc;
}

/* "NAME:TOTAL:HEAD" at column 0.  */
static enum sfdo_errc
parse_function_line (struct text_reader *r)
{
  struct span t = { r->line, r->line + r->len };
  while (t.end > t.s && t.end[-1] == ' ')
    t.end--;
  const char *c2 = last_colon (t);
  struct span head_part = t;
  if (c2)
    head_part.end = c2;
  const char *c1 = c2 ? last_colon (head_part) : NULL;
  if (!c1 || c1 == t.s)
    return fail_at (r, t.s, SFDO_E_MALFORMED,
                    "expected 'NAME:TOTAL:HEAD' for a function");
  uint64_t total, head;
  struct span num = { c1 + 1, c2 };
  enum sfdo_errc rc = parse_u64 (r, &num, UINT64_MAX, &total);
  if (rc == SFDO_OK && num.s != c2)
    rc = fail_at (r, num.s, SFDO_E_MALFORMED, "expected ':' after total");
  num.s = c2 + 1;
  num.end = t.end;
  if (rc == SFDO_OK)
    rc = parse_u64 (r, &num, UINT64_MAX, &head);
  if (rc == SFDO_OK && num.s != t.end)
    rc = fail_at (r, num.s, SFDO_E_MALFORMED, "junk after head count");
  if (rc != SFDO_OK)
    return rc;
  uint32_t name;
  rc = take_string (r, t.s, (size_t) (c1 - t.s), SFDO_STR_NAME, &name);
  if (rc != SFDO_OK)
    return rc;
  struct sfdo_prof_func *f = sfdo_profile_add_func (r->p, name, 0);
  f->total = total;
  f->head = head;
  r->stack[0] = f;
  r->depth = 1;
  r->llvm = !r->sfdo_header;
  r->seen_function = 1;
  return SFDO_OK;
}

static enum sfdo_errc
parse_values (struct text_reader *r, struct sfdo_prof_func *f, struct span sp)
{
  uint32_t off, disc;
  enum sfdo_errc rc = parse_site (r, &sp, &off, &disc);
  if (rc != SFDO_OK)
    return rc;
  struct span kind_tok = next_token (&sp);
  uint32_t kind = 0;
  for (; kind < SFDO_VALUE_NKINDS; kind++)
    {
      const char *k = sfdo_prof_value_kind_name (kind);
      if ((size_t) (kind_tok.end - kind_tok.s) == strlen (k)
          && memcmp (kind_tok.s, k, strlen (k)) == 0)
        break;
    }
  if (kind == SFDO_VALUE_NKINDS)
    return fail_at (r, kind_tok.s, SFDO_E_MALFORMED,
                    "unknown value kind (expected icall, divmod or memsize)");
  for (struct span t = next_token (&sp); t.s < t.end; t = next_token (&sp))
    {
      uint32_t name;
      uint64_t value, count;
      rc = parse_name_count (r, t, &name, &count);
      if (rc == SFDO_OK && !sfdo_value_kind_is_name (kind))
        {
          struct span v = { t.s, last_colon (t) };
          rc = kind == SFDO_VALUE_DIVMOD ? parse_i64 (r, &v, &value)
                                         : parse_u64 (r, &v, UINT64_MAX, &value);
          if (rc == SFDO_OK && v.s != v.end)
            rc = fail_at (r, v.s, SFDO_E_MALFORMED, "junk after value");
        }
      else
        value = name;
      if (rc != SFDO_OK)
        return rc;
      sfdo_prof_func_add_value (f, off, disc, kind, value, count);
    }
  return SFDO_OK;
}

static enum sfdo_errc
parse_metadata (struct text_reader *r, struct sfdo_prof_func *f,
                struct span sp)
{
  if (starts_with (&sp, "!CFGChecksum: "))
    {
      f->has_checksum = 1;
      enum sfdo_errc rc = parse_u64 (r, &sp, UINT64_MAX, &f->checksum);
      if (rc == SFDO_OK && sp.s != sp.end)
        rc = fail_at (r, sp.s, SFDO_E_MALFORMED, "junk after checksum");
      return rc;
    }
  if (starts_with (&sp, "!File: "))
    {
      return take_string (r, sp.s, (size_t) (sp.end - sp.s), SFDO_STR_LINE,
                          &f->file);
    }
  if (starts_with (&sp, "!Values: "))
    return parse_values (r, f, sp);
  return fail_at (r, sp.s, SFDO_E_MALFORMED,
                  "unknown metadata (expected !CFGChecksum, !File or "
                  "!Values)");
}

/* "NAME:TOTAL[:HEAD]" of an inlined callee at (OFF, DISC) of F.  */
static enum sfdo_errc
parse_callsite (struct text_reader *r, struct sfdo_prof_func *f,
                uint32_t off, uint32_t disc, struct span t)
{
  if (r->depth > SFDO_PROFILE_MAX_DEPTH)
    return fail_at (r, t.s, SFDO_E_TOO_DEEP, "inline nesting too deep");
  const char *c2 = last_colon (t);
  uint64_t total = 0, head = 0;
  if (!c2 || c2 == t.s)
    return fail_at (r, t.s, SFDO_E_MALFORMED,
                    "expected a count or 'CALLEE:TOTAL'");
  struct span before = { t.s, c2 };
  const char *c1 = last_colon (before);
  struct span num = { c1 ? c1 + 1 : c2, c2 };
  const char *name_end = c2;
  if (c1 && c1 > t.s && all_digits (num))
    {
      name_end = c1;           /* NAME:TOTAL:HEAD */
      if (parse_u64 (r, &num, UINT64_MAX, &total) != SFDO_OK)
        return r->err->code;
    }
  num.s = c2 + 1;
  num.end = t.end;
  uint64_t last;
  enum sfdo_errc rc = parse_u64 (r, &num, UINT64_MAX, &last);
  if (rc == SFDO_OK && num.s != t.end)
    rc = fail_at (r, num.s, SFDO_E_MALFORMED, "junk after count");
  if (rc != SFDO_OK)
    return rc;
  if (name_end == c1)
    head = last;
  else
    total = last;
  uint32_t name;
  rc = take_string (r, t.s, (size_t) (name_end - t.s), SFDO_STR_NAME, &name);
  if (rc != SFDO_OK)
    return rc;
  struct sfdo_prof_func *c
    = sfdo_prof_func_add_callsite (f, off, disc, name, 0);
  c->total = total;
  c->head = head;
  r->stack[r->depth++] = c;
  return SFDO_OK;
}

/* A line indented by DEPTH spaces, belonging to the function open there.  */
static enum sfdo_errc
parse_body_line (struct text_reader *r, size_t depth)
{
  struct span sp = { r->line + depth, r->line + r->len };
  if (!r->seen_function)
    return fail_at (r, r->line, SFDO_E_MALFORMED,
                    "indented line before the first function");
  if (depth > r->depth)
    return fail_at (r, sp.s, SFDO_E_MALFORMED,
                    "unexpected indentation (deeper than the enclosing "
                    "function's body)");
  r->depth = depth;
  struct sfdo_prof_func *f = r->stack[depth - 1];
  if (*sp.s == '!')
    return parse_metadata (r, f, sp);
  uint32_t off, disc;
  enum sfdo_errc rc = parse_site (r, &sp, &off, &disc);
  if (rc == SFDO_OK)
    rc = expect (r, &sp, ": ");
  if (rc != SFDO_OK)
    return rc;
  struct span first = next_token (&sp);
  if (first.s == first.end || *first.s < '0' || *first.s > '9')
    return parse_callsite (r, f, off, disc, first);
  uint64_t count;
  rc = parse_u64 (r, &first, UINT64_MAX, &count);
  if (rc == SFDO_OK && first.s != first.end)
    rc = fail_at (r, first.s, SFDO_E_MALFORMED, "junk after count");
  if (rc != SFDO_OK)
    return rc;
  struct sfdo_prof_line *l = sfdo_prof_func_add_line (f, off, disc, count);
  for (struct span t = next_token (&sp); t.s < t.end; t = next_token (&sp))
    {
      uint32_t name;
      rc = parse_name_count (r, t, &name, &count);
      if (rc != SFDO_OK)
        return rc;
      sfdo_prof_line_add_target (l, name, count);
    }
  return SFDO_OK;
}

static enum sfdo_errc
parse_line (struct text_reader *r)
{
  if (r->len && r->line[r->len - 1] == '\r')
    r->len--;
  size_t depth = 0;
  while (depth < r->len && r->line[depth] == ' ')
    depth++;
  if (depth == r->len)
    return SFDO_OK;
  if (r->line[depth] == '\t')
    return fail_at (r, r->line + depth, SFDO_E_MALFORMED,
                    "tab in indentation; indent with spaces");
  if (r->line[depth] == '#')
    return r->seen_function || depth ? SFDO_OK : parse_header_line (r);
  if (depth == 0)
    return parse_function_line (r);
  return parse_body_line (r, depth);
}

enum sfdo_errc
sfdo_text_read (struct sfdo_profile *p, const char *data, size_t len,
                struct sfdo_error *err)
{
  struct text_reader *r
    = (struct text_reader *) sfdo_xcalloc (1, sizeof *r);
  r->p = p;
  r->path = p->path;
  r->err = err;
  enum sfdo_errc rc = SFDO_OK;
  struct sfdo_error local;
  if (!r->err)
    r->err = &local;
  sfdo_error_clear (r->err);
  const char *end = data + len;
  for (const char *s = data; s < end && rc == SFDO_OK;)
    {
      const char *nl = memchr (s, '\n', (size_t) (end - s));
      r->line = s;
      r->len = (size_t) ((nl ? nl : end) - s);
      r->lineno++;
      if (memchr (s, 0, r->len))
        rc = fail_at (r, (const char *) memchr (s, 0, r->len),
                      SFDO_E_MALFORMED, "NUL byte in a text profile");
      else
        rc = parse_line (r);
      s = nl ? nl + 1 : end;
    }
  free (r);
  if (rc == SFDO_OK)
    rc = sfdo_profile_finalize (p, err);
  return rc;
}

/* --- Writing ---------------------------------------------------------------- */

struct out {
  FILE *f;
  char buf[1 << 16];
  size_t len;
  int failed;
  /* LLVM's subset: extensions left out and counted here.  */
  struct sfdo_export_report *llvm_lost;
  const struct sfdo_llvm_notes *llvm_notes;
  int llvm_base;                /* discriminators are LLVM's base ones */
};

static void
out_flush (struct out *o)
{
  if (o->len && fwrite (o->buf, 1, o->len, o->f) != o->len)
    o->failed = 1;
  o->len = 0;
}

static void
out_bytes (struct out *o, const char *s, size_t n)
{
  if (o->len + n > sizeof o->buf)
    out_flush (o);
  if (n > sizeof o->buf)
    {
      if (fwrite (s, 1, n, o->f) != n)
        o->failed = 1;
      return;
    }
  memcpy (o->buf + o->len, s, n);
  o->len += n;
}

static void
out_str (struct out *o, const char *s)
{
  out_bytes (o, s, strlen (s));
}

static void
out_u64 (struct out *o, uint64_t v)
{
  char tmp[24];
  char *e = tmp + sizeof tmp, *s = e;
  do
    *--s = (char) ('0' + v % 10);
  while (v /= 10);
  out_bytes (o, s, (size_t) (e - s));
}

static void
out_indent (struct out *o, size_t depth)
{
  for (size_t i = 0; i < depth; i++)
    out_bytes (o, " ", 1);
}

static void
out_site (struct out *o, uint32_t off, uint32_t disc)
{
  out_u64 (o, off);
  if (disc)
    {
      out_bytes (o, ".", 1);
      out_u64 (o, disc);
    }
}

/* The first line tells sfdo's readers which discriminators follow: the
   version line, sfdo's (the binary's own); any other, LLVM's base
   discriminators.  */
static void
write_header (struct out *o, const struct sfdo_profile *p)
{
  const struct sfdo_prof_header *h = &p->hdr;
  if (o->llvm_base)
    out_str (o, "# LLVM text sample profile, written by sfdo; discriminators "
                "are LLVM's base discriminators\n");
  else
    {
      out_str (o, "# sfdo-profile: ");
      out_u64 (o, h->version);
      out_str (o, "\n");
    }
  for (size_t i = 0; i < h->nbuild_ids; i++)
    {
      out_str (o, "# build-id: ");
      out_str (o, sfdo_profile_str (p, h->build_ids[i]));
      out_str (o, "\n");
    }
  for (size_t i = 0; i < h->nmodes; i++)
    {
      out_str (o, "# mode: ");
      out_str (o, sfdo_profile_str (p, h->modes[i]));
      out_str (o, "\n");
    }
  for (size_t i = 0; i < h->nevents; i++)
    {
      out_str (o, "# event: ");
      out_str (o, sfdo_profile_str (p, h->events[i].name));
      out_str (o, " period=");
      out_u64 (o, h->events[i].period);
      out_str (o, " samples=");
      out_u64 (o, h->events[i].samples);
      out_str (o, "\n");
    }
  for (size_t i = 0; i < h->ntools; i++)
    {
      out_str (o, "# tool: ");
      out_str (o, sfdo_profile_str (p, h->tools[i]));
      out_str (o, "\n");
    }
  for (size_t i = 0; i < h->nproducers; i++)
    {
      out_str (o, "# producer: ");
      out_str (o, sfdo_profile_str (p, h->producers[i]));
      out_str (o, "\n");
    }
  out_str (o, "# samples: used=");
  out_u64 (o, h->samples_used);
  out_str (o, " dropped=");
  out_u64 (o, h->samples_dropped);
  out_str (o, "\n");
  for (size_t i = 0; o->llvm_notes && i < o->llvm_notes->n; i++)
    {
      out_str (o, "# ");
      out_str (o, o->llvm_notes->lines[i]);
      out_str (o, "\n");
    }
}

static void
write_value_entry (struct out *o, const struct sfdo_profile *p,
                   uint32_t kind, const struct sfdo_prof_vcount *e)
{
  out_bytes (o, " ", 1);
  if (sfdo_value_kind_is_name (kind))
    out_str (o, sfdo_profile_str (p, (uint32_t) e->value));
  else if (kind == SFDO_VALUE_DIVMOD && (int64_t) e->value < 0)
    {
      out_bytes (o, "-", 1);
      out_u64 (o, (uint64_t) 0 - e->value);
    }
  else
    out_u64 (o, e->value);
  out_bytes (o, ":", 1);
  out_u64 (o, e->count);
}

static void
write_metadata (struct out *o, const struct sfdo_profile *p,
                const struct sfdo_prof_func *f, size_t depth)
{
  if (f->has_checksum)
    {
      out_indent (o, depth);
      out_str (o, "!CFGChecksum: ");
      out_u64 (o, f->checksum);
      out_str (o, "\n");
    }
  if (o->llvm_lost)
    {
      o->llvm_lost->files += f->file != 0;
      o->llvm_lost->value_histograms += f->nvalues;
      return;
    }
  if (f->file)
    {
      out_indent (o, depth);
      out_str (o, "!File: ");
      out_str (o, sfdo_profile_str (p, f->file));
      out_str (o, "\n");
    }
  for (size_t i = 0; i < f->nvalues; i++)
    {
      const struct sfdo_prof_values *v = &f->values[i];
      out_indent (o, depth);
      out_str (o, "!Values: ");
      out_site (o, v->offset, v->discriminator);
      out_bytes (o, " ", 1);
      out_str (o, sfdo_prof_value_kind_name (v->kind));
      for (size_t k = 0; k < v->nentries; k++)
        write_value_entry (o, p, v->kind, &v->entries[k]);
      out_str (o, "\n");
    }
}

/* Body of F (lines, callsites, metadata) at indentation DEPTH.  */
static void
write_body (struct out *o, const struct sfdo_profile *p,
            const struct sfdo_prof_func *f, size_t depth)
{
  for (size_t i = 0; i < f->nlines; i++)
    {
      const struct sfdo_prof_line *l = &f->lines[i];
      out_indent (o, depth);
      out_site (o, l->offset, l->discriminator);
      out_str (o, ": ");
      out_u64 (o, l->count);
      for (size_t k = 0; k < l->ntargets; k++)
        {
          out_bytes (o, " ", 1);
          out_str (o, sfdo_profile_str (p, l->targets[k].name));
          out_bytes (o, ":", 1);
          out_u64 (o, l->targets[k].count);
        }
      out_str (o, "\n");
    }
  for (size_t i = 0; i < f->ncallsites; i++)
    {
      const struct sfdo_prof_callsite *c = &f->callsites[i];
      out_indent (o, depth);
      out_site (o, c->offset, c->discriminator);
      out_str (o, ": ");
      out_str (o, sfdo_profile_str (p, c->callee->name));
      out_bytes (o, ":", 1);
      out_u64 (o, c->callee->total);
      /* A name with ':' would make NAME:TOTAL read as NAME:TOTAL:HEAD.  */
      if (o->llvm_lost)
        o->llvm_lost->inline_heads += c->callee->head != 0;
      else if (c->callee->head
               || strchr (sfdo_profile_str (p, c->callee->name), ':'))
        {
          out_bytes (o, ":", 1);
          out_u64 (o, c->callee->head);
        }
      out_str (o, "\n");
      write_body (o, p, c->callee, depth + 1);
    }
  write_metadata (o, p, f, depth);
}

static enum sfdo_errc
text_write (struct sfdo_profile *p, FILE *f, const char *name, int llvm_base,
            const struct sfdo_llvm_notes *llvm_notes,
            struct sfdo_export_report *llvm_lost, struct sfdo_error *err)
{
  struct out *o = (struct out *) sfdo_xmalloc (sizeof *o);
  o->f = f;
  o->len = 0;
  o->failed = 0;
  o->llvm_lost = llvm_lost;
  o->llvm_notes = llvm_notes;
  o->llvm_base = llvm_base;
  write_header (o, p);
  for (size_t i = 0; i < p->nfuncs; i++)
    {
      const struct sfdo_prof_func *fn = p->funcs[i];
      out_str (o, sfdo_profile_str (p, fn->name));
      out_bytes (o, ":", 1);
      out_u64 (o, fn->total);
      out_bytes (o, ":", 1);
      out_u64 (o, fn->head);
      out_str (o, "\n");
      write_body (o, p, fn, 1);
    }
  out_flush (o);
  int failed = o->failed;
  free (o);
  if (failed)
    return sfdo_error_sys (err, name, "write failed");
  return SFDO_OK;
}

enum sfdo_errc
sfdo_text_write (struct sfdo_profile *p, FILE *f, const char *name,
                 struct sfdo_error *err)
{
  return text_write (p, f, name, 0, NULL, NULL, err);
}

enum sfdo_errc
sfdo_text_write_llvm (struct sfdo_profile *p, FILE *f, const char *name,
                      int base, const struct sfdo_llvm_notes *notes,
                      struct sfdo_export_report *lost, struct sfdo_error *err)
{
  return text_write (p, f, name, base, notes, lost, err);
}
