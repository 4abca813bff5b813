/* tests/unit/profiles/test_profile.c - unit tests of profiles/profile.h.
 *
 * Round trips through both encodings, the FORMAT.md example, merge, overlap,
 * lazy lookup in a mapped binary profile, and malformed input: one case per
 * reachable error path, checking the code and the line, column or offset.
 * Profiles are built with the add API; copies go through the text encoding
 * so that every test works on profiles it owns.  */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../profiles/profile.h"
#include "tmpname.h"

#define MAGIC "\x89SFDO\r\n\x1a"
#define BIG (((uint64_t) 1 << 63) + 5)

/* --- Helpers: encode, decode, copy --------------------------------------- */

static struct sfdo_error
no_error (void)
{
  struct sfdo_error err;
  sfdo_error_clear (&err);
  return err;
}

static void
show_error (const struct sfdo_error *err)
{
  char buf[700];
  print_message ("error %d: %s\n", err->code,
                 sfdo_error_format (err, buf, sizeof buf));
}

/* P in ENC as a malloc'd buffer of *LEN bytes (NUL-terminated).  */
static char *
encode (struct sfdo_profile *p, enum sfdo_prof_encoding enc, size_t *len)
{
  char *buf = NULL;
  FILE *f = open_memstream (&buf, len);
  struct sfdo_error err = no_error ();
  assert_non_null (f);
  enum sfdo_errc rc = sfdo_profile_write (p, f, enc, "mem", &err);
  if (rc != SFDO_OK)
    show_error (&err);
  assert_int_equal (rc, SFDO_OK);
  assert_int_equal (fclose (f), 0);
  return buf;
}

static char *
text_of (struct sfdo_profile *p)
{
  size_t len;
  return encode (p, SFDO_PROF_TEXT, &len);
}

static struct sfdo_profile *
decode (const void *buf, size_t len)
{
  struct sfdo_profile *p = NULL;
  struct sfdo_error err = no_error ();
  enum sfdo_errc rc = sfdo_profile_read_mem (buf, len, "mem", &p, &err);
  if (rc != SFDO_OK)
    show_error (&err);
  assert_int_equal (rc, SFDO_OK);
  assert_non_null (p);
  return p;
}

static struct sfdo_profile *
parse (const char *text)
{
  return decode (text, strlen (text));
}

/* A profile equal to P, through ENC.  */
static struct sfdo_profile *
copy_via (struct sfdo_profile *p, enum sfdo_prof_encoding enc)
{
  size_t len;
  char *buf = encode (p, enc, &len);
  struct sfdo_profile *q = decode (buf, len);
  free (buf);
  return q;
}

static struct sfdo_profile *
copy (struct sfdo_profile *p)
{
  return copy_via (p, SFDO_PROF_TEXT);
}

static void
assert_same_text (struct sfdo_profile *a, struct sfdo_profile *b)
{
  char *ta = text_of (a), *tb = text_of (b);
  assert_string_equal (ta, tb);
  free (ta);
  free (tb);
}

/* DST merged with SRC (WEIGHT); DST is returned, SRC freed.  */
static struct sfdo_profile *
merged (struct sfdo_profile *dst, struct sfdo_profile *src, uint64_t weight)
{
  struct sfdo_error err = no_error ();
  enum sfdo_errc rc = sfdo_profile_merge (dst, src, weight, &err);
  if (rc != SFDO_OK)
    show_error (&err);
  assert_int_equal (rc, SFDO_OK);
  sfdo_profile_free (src);
  return dst;
}

static struct sfdo_prof_func *
func_at (struct sfdo_profile *p, size_t i)
{
  struct sfdo_error err = no_error ();
  struct sfdo_prof_func *f = sfdo_profile_func (p, i, &err);
  if (!f)
    show_error (&err);
  assert_non_null (f);
  return f;
}

static struct sfdo_prof_func *
find (struct sfdo_profile *p, const char *name, const char *file)
{
  struct sfdo_error err = no_error ();
  struct sfdo_prof_func *f = sfdo_profile_find (p, name, file, &err);
  if (!f)
    print_message ("%s (file %s) not found\n", name, file ? file : "-");
  assert_non_null (f);
  assert_int_equal (err.code, SFDO_OK);
  return f;
}

static uint32_t
S (struct sfdo_profile *p, const char *s)
{
  return sfdo_profile_intern_str (p, s);
}

/* --- Helpers: the rich model and what it must contain -------------------- */

static void
build_header (struct sfdo_profile *p)
{
  struct sfdo_prof_header *h = sfdo_profile_header (p);
  sfdo_profile_add_build_id (p, "ffee00");
  sfdo_profile_add_build_id (p, "5a1c9e0f");
  sfdo_profile_add_mode (p, "lbr");
  sfdo_profile_add_mode (p, "ip");
  sfdo_profile_add_tool (p, "sfdo-convert 0.1.0");
  sfdo_profile_add_event (p, "cycles:u", 100003, 4000);
  sfdo_profile_add_event (p, "INST_RETIRED:ANY_P", 1000, 7);
  sfdo_profile_add_event (p, "cycles:u", 2000003, 10);
  sfdo_profile_add_event (p, "cycles:u", 100003, 512);
  sfdo_profile_add_producer (p, "GCC 16.2.0");
  h = sfdo_profile_header (p);
  h->samples_used = 4490;
  h->samples_dropped = 22;
}

/* main -> sum_array -> add (static, util.h) -> leaf: three levels inlined.  */
static void
build_sum_array (struct sfdo_profile *p, struct sfdo_prof_func *main_f)
{
  struct sfdo_prof_func *sa, *add, *leaf;
  sa = sfdo_prof_func_add_callsite (main_f, 5, 0, S (p, "sum_array"), 0);
  sa->total = 1641010;
  sa->head = 5;
  sfdo_prof_func_add_line (sa, 2, 0, 820000);
  sfdo_prof_func_add_line (sa, 1, 0, 820000);
  add = sfdo_prof_func_add_callsite (sa, 2, 1, S (p, "add"), S (p, "util.h"));
  add->total = 1010;
  sfdo_prof_func_add_line (add, 0, 0, 1000);
  sfdo_prof_func_add_value (add, 0, 0, SFDO_VALUE_MEMSIZE, 16, 4);
  leaf = sfdo_prof_func_add_callsite (add, 0, 0, S (p, "leaf"), 0);
  leaf->total = 10;
  leaf->head = 10;
  leaf->checksum = 77;
  leaf->has_checksum = 1;
  sfdo_prof_line_add_target (sfdo_prof_func_add_line (leaf, 0, 0, 10),
                             S (p, "puts"), 10);
}

static struct sfdo_prof_func *
build_main (struct sfdo_profile *p)
{
  struct sfdo_prof_func *f = sfdo_profile_add_func (p, S (p, "main"), 0);
  struct sfdo_prof_func *avg;
  struct sfdo_prof_line *l;
  f->total = 1831018;
  f->head = 1;
  f->checksum = 3141592653u;
  f->has_checksum = 1;
  l = sfdo_prof_func_add_line (f, 4, 2, 90000);
  sfdo_prof_line_add_target (l, S (p, "helper"), 10000);
  sfdo_prof_line_add_target (l, S (p, "compute"), 80000);
  sfdo_prof_func_add_line (f, 3, 0, 100000);
  sfdo_prof_func_add_line (f, 0, 0, 1);
  sfdo_prof_func_add_value (f, 7, 0, SFDO_VALUE_MEMSIZE, (uint64_t) 1 << 40, 3);
  sfdo_prof_func_add_value (f, 7, 0, SFDO_VALUE_MEMSIZE, 64, 100);
  sfdo_prof_func_add_value (f, 4, 2, SFDO_VALUE_DIVMOD, 8, 70000);
  sfdo_prof_func_add_value (f, 4, 2, SFDO_VALUE_DIVMOD, (uint64_t) -3, 20000);
  sfdo_prof_func_add_value (f, 4, 2, SFDO_VALUE_DIVMOD,
                            (uint64_t) INT64_MIN, 5);
  sfdo_prof_func_add_value (f, 4, 2, SFDO_VALUE_QUOTIENT, 2, 60);
  sfdo_prof_func_add_value (f, 4, 2, SFDO_VALUE_QUOTIENT, 0, 40);
  sfdo_prof_func_add_value (f, 7, 0, SFDO_VALUE_ALIGN, 16, 90);
  sfdo_prof_func_add_value (f, 7, 0, SFDO_VALUE_ALIGN, 4096, 13);
  sfdo_prof_func_add_value (f, 4, 2, SFDO_VALUE_ICALL, S (p, "helper"), 10000);
  sfdo_prof_func_add_value (f, 4, 2, SFDO_VALUE_ICALL, S (p, "compute"), 80000);
  sfdo_prof_func_add_value (f, 4, 2, SFDO_VALUE_CALL_SAMPLES, S (p, "helper"),
                            3);
  sfdo_prof_func_add_value (f, 4, 2, SFDO_VALUE_CALL_SAMPLES,
                            S (p, "compute"), 24);
  sfdo_prof_func_add_value (f, 4, 2, SFDO_VALUE_CALL_SITES, S (p, "helper"),
                            1);
  build_sum_array (p, f);
  avg = sfdo_prof_func_add_callsite (f, 5, 0, S (p, "avg"), 0);
  avg->total = 7;
  sfdo_prof_func_add_line (avg, 0, 0, 7);
  return f;
}

static void
build_static (struct sfdo_profile *p, const char *file, uint64_t total,
              uint32_t offset, uint32_t discriminator)
{
  struct sfdo_prof_func *f
    = sfdo_profile_add_func (p, S (p, "helper"), S (p, file));
  f->total = total;
  f->head = total / 10;
  f->checksum = total;
  f->has_checksum = 1;
  sfdo_prof_func_add_line (f, offset, discriminator, total);
}

/* Everything the model can hold; check_rich() says what it holds.  */
static struct sfdo_profile *
build_rich (void)
{
  struct sfdo_profile *p = sfdo_profile_new ();
  build_static (p, "b.c", 300, 2, 3);
  build_main (p);
  build_header (p);
  build_static (p, "a.c", 500, 1, 0);
  return p;
}

static void
check_line (struct sfdo_profile *p, const struct sfdo_prof_func *f, size_t i,
            uint32_t offset, uint32_t discriminator, uint64_t count)
{
  (void) p;
  assert_true (i < f->nlines);
  assert_int_equal (f->lines[i].offset, offset);
  assert_int_equal (f->lines[i].discriminator, discriminator);
  assert_int_equal (f->lines[i].count, count);
}

static void
check_target (struct sfdo_profile *p, const struct sfdo_prof_line *l,
              size_t i, const char *name, uint64_t count)
{
  assert_true (i < l->ntargets);
  assert_string_equal (sfdo_profile_str (p, l->targets[i].name), name);
  assert_int_equal (l->targets[i].count, count);
}

static void
check_site (const struct sfdo_prof_values *v, uint32_t offset,
            uint32_t discriminator, uint32_t kind, size_t n)
{
  assert_int_equal (v->offset, offset);
  assert_int_equal (v->discriminator, discriminator);
  assert_int_equal (v->kind, kind);
  assert_int_equal (v->nentries, n);
}

static void
check_entry (const struct sfdo_prof_values *v, size_t i, uint64_t value,
             uint64_t count)
{
  assert_int_equal (v->entries[i].value, value);
  assert_int_equal (v->entries[i].count, count);
}

static void
check_icall (struct sfdo_profile *p, const struct sfdo_prof_values *v,
             size_t i, const char *name, uint64_t count)
{
  assert_string_equal (sfdo_profile_str (p, (uint32_t) v->entries[i].value),
                       name);
  assert_int_equal (v->entries[i].count, count);
}

static struct sfdo_prof_func *
check_callsite (struct sfdo_profile *p, const struct sfdo_prof_func *f,
                size_t i, uint32_t offset, uint32_t discriminator,
                const char *name, const char *file, uint64_t total)
{
  assert_true (i < f->ncallsites);
  const struct sfdo_prof_callsite *cs = &f->callsites[i];
  assert_int_equal (cs->offset, offset);
  assert_int_equal (cs->discriminator, discriminator);
  assert_non_null (cs->callee);
  assert_string_equal (sfdo_profile_str (p, cs->callee->name), name);
  assert_string_equal (sfdo_profile_str (p, cs->callee->file), file);
  assert_int_equal (cs->callee->total, total);
  return cs->callee;
}

static void
check_rich_header (struct sfdo_profile *p)
{
  struct sfdo_prof_header *h = sfdo_profile_header (p);
  assert_int_equal (h->version, SFDO_PROFILE_VERSION);
  assert_int_equal (h->nbuild_ids, 2);
  assert_string_equal (sfdo_profile_str (p, h->build_ids[0]), "5a1c9e0f");
  assert_string_equal (sfdo_profile_str (p, h->build_ids[1]), "ffee00");
  assert_int_equal (h->nmodes, 2);
  assert_string_equal (sfdo_profile_str (p, h->modes[0]), "ip");
  assert_string_equal (sfdo_profile_str (p, h->modes[1]), "lbr");
  assert_int_equal (h->ntools, 1);
  assert_string_equal (sfdo_profile_str (p, h->tools[0]),
                       "sfdo-convert 0.1.0");
  assert_int_equal (h->nevents, 3);
  assert_string_equal (sfdo_profile_str (p, h->events[0].name),
                       "INST_RETIRED:ANY_P");
  assert_int_equal (h->events[0].samples, 7);
  assert_string_equal (sfdo_profile_str (p, h->events[1].name), "cycles:u");
  assert_int_equal (h->events[1].period, 100003);
  assert_int_equal (h->events[1].samples, 4512);
  assert_int_equal (h->events[2].period, 2000003);
  assert_int_equal (h->samples_used, 4490);
  assert_int_equal (h->samples_dropped, 22);
  assert_int_equal (h->nproducers, 1);
  assert_string_equal (sfdo_profile_str (p, h->producers[0]), "GCC 16.2.0");
}

static void
check_rich_main_body (struct sfdo_profile *p, const struct sfdo_prof_func *f)
{
  assert_string_equal (sfdo_profile_str (p, f->name), "main");
  assert_string_equal (sfdo_profile_str (p, f->file), "");
  assert_int_equal (f->total, 1831018);
  assert_int_equal (f->head, 1);
  assert_true (f->has_checksum);
  assert_int_equal (f->checksum, 3141592653u);
  assert_int_equal (f->nlines, 3);
  check_line (p, f, 0, 0, 0, 1);
  check_line (p, f, 1, 3, 0, 100000);
  check_line (p, f, 2, 4, 2, 90000);
  assert_int_equal (f->lines[2].ntargets, 2);
  check_target (p, &f->lines[2], 0, "compute", 80000);
  check_target (p, &f->lines[2], 1, "helper", 10000);
  assert_ptr_equal (sfdo_prof_func_find_line (f, 4, 2), &f->lines[2]);
  assert_null (sfdo_prof_func_find_line (f, 4, 0));
}

static void
check_rich_main_values (struct sfdo_profile *p, const struct sfdo_prof_func *f)
{
  assert_int_equal (f->nvalues, 7);
  check_site (&f->values[0], 4, 2, SFDO_VALUE_ICALL, 2);
  check_icall (p, &f->values[0], 0, "compute", 80000);
  check_icall (p, &f->values[0], 1, "helper", 10000);
  check_site (&f->values[1], 4, 2, SFDO_VALUE_DIVMOD, 3);
  check_entry (&f->values[1], 0, 8, 70000);
  check_entry (&f->values[1], 1, (uint64_t) -3, 20000);
  check_entry (&f->values[1], 2, (uint64_t) INT64_MIN, 5);
  check_site (&f->values[2], 4, 2, SFDO_VALUE_QUOTIENT, 2);
  check_entry (&f->values[2], 0, 2, 60);
  check_entry (&f->values[2], 1, 0, 40);
  /* The support of the call's edges: names, like icall's.  */
  check_site (&f->values[3], 4, 2, SFDO_VALUE_CALL_SAMPLES, 2);
  check_icall (p, &f->values[3], 0, "compute", 24);
  check_icall (p, &f->values[3], 1, "helper", 3);
  /* The call sites the source has there: names too.  */
  check_site (&f->values[4], 4, 2, SFDO_VALUE_CALL_SITES, 1);
  check_icall (p, &f->values[4], 0, "helper", 1);
  check_site (&f->values[5], 7, 0, SFDO_VALUE_MEMSIZE, 2);
  check_entry (&f->values[5], 0, 64, 100);
  check_entry (&f->values[5], 1, (uint64_t) 1 << 40, 3);
  check_site (&f->values[6], 7, 0, SFDO_VALUE_ALIGN, 2);
  check_entry (&f->values[6], 0, 16, 90);
  check_entry (&f->values[6], 1, 4096, 13);
}

static void
check_rich_inlinees (struct sfdo_profile *p, const struct sfdo_prof_func *f)
{
  struct sfdo_prof_func *avg, *sa, *add, *leaf;
  assert_int_equal (f->ncallsites, 2);
  avg = check_callsite (p, f, 0, 5, 0, "avg", "", 7);
  check_line (p, avg, 0, 0, 0, 7);
  sa = check_callsite (p, f, 1, 5, 0, "sum_array", "", 1641010);
  assert_int_equal (sa->head, 5);
  assert_int_equal (sa->nlines, 2);
  check_line (p, sa, 0, 1, 0, 820000);
  check_line (p, sa, 1, 2, 0, 820000);
  add = check_callsite (p, sa, 0, 2, 1, "add", "util.h", 1010);
  assert_int_equal (add->nvalues, 1);
  check_site (&add->values[0], 0, 0, SFDO_VALUE_MEMSIZE, 1);
  check_entry (&add->values[0], 0, 16, 4);
  leaf = check_callsite (p, add, 0, 0, 0, "leaf", "", 10);
  assert_int_equal (leaf->head, 10);
  assert_true (leaf->has_checksum);
  assert_int_equal (leaf->checksum, 77);
  check_target (p, &leaf->lines[0], 0, "puts", 10);
  assert_int_equal (leaf->ncallsites, 0);
}

static void
check_rich_static (struct sfdo_profile *p, const struct sfdo_prof_func *f,
                   const char *file, uint64_t total)
{
  assert_string_equal (sfdo_profile_str (p, f->name), "helper");
  assert_string_equal (sfdo_profile_str (p, f->file), file);
  assert_int_equal (f->total, total);
  assert_int_equal (f->head, total / 10);
  assert_int_equal (f->checksum, total);
  assert_int_equal (f->nlines, 1);
}

/* P holds exactly what build_rich() put in, in canonical order.  */
static void
check_rich (struct sfdo_profile *p)
{
  check_rich_header (p);
  assert_int_equal (sfdo_profile_nfuncs (p), 3);
  check_rich_main_body (p, func_at (p, 0));
  check_rich_main_values (p, func_at (p, 0));
  check_rich_inlinees (p, func_at (p, 0));
  check_rich_static (p, func_at (p, 1), "a.c", 500);
  check_line (p, func_at (p, 1), 0, 1, 0, 500);
  check_rich_static (p, func_at (p, 2), "b.c", 300);
  check_line (p, func_at (p, 2), 0, 2, 3, 300);
  assert_null (sfdo_profile_func (p, 3, NULL));
  assert_int_equal (sfdo_profile_total (p), 1831018 + 500 + 300);
}

/* --- Helpers: structural equality of two profiles ------------------------ */

static void
assert_ids_equal (struct sfdo_profile *pa, uint32_t a, struct sfdo_profile *pb,
                  uint32_t b)
{
  assert_string_equal (sfdo_profile_str (pa, a), sfdo_profile_str (pb, b));
}

static void
assert_lines_equal (struct sfdo_profile *pa, const struct sfdo_prof_line *a,
                    struct sfdo_profile *pb, const struct sfdo_prof_line *b)
{
  assert_int_equal (a->offset, b->offset);
  assert_int_equal (a->discriminator, b->discriminator);
  assert_int_equal (a->count, b->count);
  assert_int_equal (a->ntargets, b->ntargets);
  for (size_t i = 0; i < a->ntargets; i++)
    {
      assert_ids_equal (pa, a->targets[i].name, pb, b->targets[i].name);
      assert_int_equal (a->targets[i].count, b->targets[i].count);
    }
}

static void
assert_values_equal (struct sfdo_profile *pa, const struct sfdo_prof_values *a,
                     struct sfdo_profile *pb, const struct sfdo_prof_values *b)
{
  check_site (b, a->offset, a->discriminator, a->kind, a->nentries);
  for (size_t i = 0; i < a->nentries; i++)
    {
      if (sfdo_value_kind_is_name (a->kind))
        assert_ids_equal (pa, (uint32_t) a->entries[i].value, pb,
                          (uint32_t) b->entries[i].value);
      else
        assert_int_equal (a->entries[i].value, b->entries[i].value);
      assert_int_equal (a->entries[i].count, b->entries[i].count);
    }
}

static void
assert_funcs_equal (struct sfdo_profile *pa, const struct sfdo_prof_func *a,
                    struct sfdo_profile *pb, const struct sfdo_prof_func *b)
{
  assert_ids_equal (pa, a->name, pb, b->name);
  assert_ids_equal (pa, a->file, pb, b->file);
  assert_int_equal (a->total, b->total);
  assert_int_equal (a->head, b->head);
  assert_int_equal (!!a->has_checksum, !!b->has_checksum);
  if (a->has_checksum)
    assert_int_equal (a->checksum, b->checksum);
  assert_int_equal (a->nlines, b->nlines);
  for (size_t i = 0; i < a->nlines; i++)
    assert_lines_equal (pa, &a->lines[i], pb, &b->lines[i]);
  assert_int_equal (a->nvalues, b->nvalues);
  for (size_t i = 0; i < a->nvalues; i++)
    assert_values_equal (pa, &a->values[i], pb, &b->values[i]);
  assert_int_equal (a->ncallsites, b->ncallsites);
  for (size_t i = 0; i < a->ncallsites; i++)
    {
      assert_int_equal (a->callsites[i].offset, b->callsites[i].offset);
      assert_int_equal (a->callsites[i].discriminator,
                        b->callsites[i].discriminator);
      assert_funcs_equal (pa, a->callsites[i].callee, pb,
                          b->callsites[i].callee);
    }
}

static void
assert_id_sets_equal (struct sfdo_profile *pa, const uint32_t *a, size_t na,
                      struct sfdo_profile *pb, const uint32_t *b, size_t nb)
{
  assert_int_equal (na, nb);
  for (size_t i = 0; i < na; i++)
    assert_ids_equal (pa, a[i], pb, b[i]);
}

static void
assert_headers_equal (struct sfdo_profile *pa, struct sfdo_profile *pb)
{
  struct sfdo_prof_header *a = sfdo_profile_header (pa);
  struct sfdo_prof_header *b = sfdo_profile_header (pb);
  assert_int_equal (a->version, b->version);
  assert_id_sets_equal (pa, a->build_ids, a->nbuild_ids, pb, b->build_ids,
                        b->nbuild_ids);
  assert_id_sets_equal (pa, a->modes, a->nmodes, pb, b->modes, b->nmodes);
  assert_id_sets_equal (pa, a->tools, a->ntools, pb, b->tools, b->ntools);
  assert_id_sets_equal (pa, a->producers, a->nproducers, pb, b->producers,
                        b->nproducers);
  assert_int_equal (a->nevents, b->nevents);
  for (size_t i = 0; i < a->nevents; i++)
    {
      assert_ids_equal (pa, a->events[i].name, pb, b->events[i].name);
      assert_int_equal (a->events[i].period, b->events[i].period);
      assert_int_equal (a->events[i].samples, b->events[i].samples);
    }
  assert_int_equal (a->samples_used, b->samples_used);
  assert_int_equal (a->samples_dropped, b->samples_dropped);
}

static void
assert_profiles_equal (struct sfdo_profile *a, struct sfdo_profile *b)
{
  assert_headers_equal (a, b);
  assert_int_equal (sfdo_profile_nfuncs (a), sfdo_profile_nfuncs (b));
  for (size_t i = 0; i < sfdo_profile_nfuncs (a); i++)
    assert_funcs_equal (a, func_at (a, i), b, func_at (b, i));
}

/* --- Helpers: temporary files and binary patching ------------------------ */

/* Write LEN bytes at BUF to a new temporary file; returns its malloc'd path. */
static char *
temp_file (const void *buf, size_t len)
{
  char *path = malloc (512);
  assert_non_null (path);
  sfdo_test_tmpname (path, 512, "profile");
  int fd = mkstemp (path);
  assert_true (fd >= 0);
  assert_int_equal (write (fd, buf, len), (ssize_t) len);
  assert_int_equal (close (fd), 0);
  return path;
}

static uint64_t
get_u64 (const unsigned char *b, size_t off)
{
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = v << 8 | b[off + i];
  return v;
}

static void
put_u64 (unsigned char *b, size_t off, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    b[off + i] = (unsigned char) (v >> (8 * i));
}

/* Header field offsets of the binary encoding (FORMAT.md).  */
enum
{
  H_VERSION = 8, H_NFUNCS = 12, H_STR_OFF = 16, H_STR_SIZE = 24,
  H_HDR_OFF = 32, H_HDR_SIZE = 40, H_INDEX_OFF = 48, H_REC_OFF = 56,
  H_REC_SIZE = 64, H_FILE_SIZE = 72, H_END = 80
};

/* The binary encoding of P; *LEN is its size.  */
static unsigned char *
binary_of (struct sfdo_profile *p, size_t *len)
{
  unsigned char *b = (unsigned char *) encode (p, SFDO_PROF_BINARY, len);
  assert_true (*len >= H_END);
  assert_memory_equal (b, MAGIC, 8);
  assert_int_equal (get_u64 (b, H_FILE_SIZE), *len);
  return b;
}

/* Reading LEN bytes at BUF fails with a byte offset; returns the code.  */
static enum sfdo_errc
binary_error (const void *buf, size_t len)
{
  struct sfdo_profile *p = (struct sfdo_profile *) 1;
  struct sfdo_error err = no_error ();
  enum sfdo_errc rc = sfdo_profile_read_mem (buf, len, "bin", &p, &err);
  assert_int_not_equal (rc, SFDO_OK);
  assert_null (p);
  assert_int_equal (err.code, rc);
  assert_string_equal (err.path, "bin");
  if (err.offset == SFDO_NO_OFFSET || err.offset > len)
    show_error (&err);
  assert_int_not_equal (err.offset, SFDO_NO_OFFSET);
  assert_true (err.offset <= len);
  return rc;
}

/* Like binary_error, and the code is one of A and B.  */
static void
expect_binary_error (const void *buf, size_t len, enum sfdo_errc a,
                     enum sfdo_errc b)
{
  enum sfdo_errc rc = binary_error (buf, len);
  if (rc != a && rc != b)
    print_message ("got error %d, want %d or %d\n", rc, a, b);
  assert_true (rc == a || rc == b);
}

/* Opening LEN bytes at BUF as a file and decoding everything fails.  */
static void
expect_lazy_error (const void *buf, size_t len)
{
  char *path = temp_file (buf, len);
  struct sfdo_profile *p = NULL;
  struct sfdo_error err = no_error ();
  enum sfdo_errc rc = sfdo_profile_open (path, &p, &err);
  if (rc == SFDO_OK)
    {
      rc = sfdo_profile_load_all (p, &err);
      sfdo_profile_free (p);
    }
  else
    assert_null (p);
  assert_int_not_equal (rc, SFDO_OK);
  assert_int_equal (err.code, rc);
  unlink (path);
  free (path);
}

/* --- Round trips --------------------------------------------------------- */

static void
test_built_model_is_canonical_after_finalize (void **state)
{
  (void) state;
  struct sfdo_profile *p = build_rich ();
  struct sfdo_error err = no_error ();
  assert_int_equal (sfdo_profile_finalize (p, &err), SFDO_OK);
  check_rich (p);
  assert_int_equal (sfdo_profile_encoding (p), SFDO_PROF_TEXT);
  sfdo_profile_free (p);
}

static void
test_model_text_model_round_trip (void **state)
{
  (void) state;
  struct sfdo_profile *p = build_rich ();
  struct sfdo_profile *q = copy_via (p, SFDO_PROF_TEXT);
  assert_int_equal (sfdo_profile_encoding (q), SFDO_PROF_TEXT);
  check_rich (q);
  assert_profiles_equal (p, q);
  sfdo_profile_free (p);
  sfdo_profile_free (q);
}

static void
test_model_binary_model_round_trip (void **state)
{
  (void) state;
  struct sfdo_profile *p = build_rich ();
  struct sfdo_profile *q = copy_via (p, SFDO_PROF_BINARY);
  assert_int_equal (sfdo_profile_encoding (q), SFDO_PROF_BINARY);
  check_rich (q);
  assert_profiles_equal (p, q);
  sfdo_profile_free (p);
  sfdo_profile_free (q);
}

/* Text T read, written as binary, read, written as text: T again.  */
static void
assert_text_binary_text_identical (const char *t)
{
  size_t blen, tlen;
  struct sfdo_profile *a = parse (t);
  char *bin = encode (a, SFDO_PROF_BINARY, &blen);
  struct sfdo_profile *b = decode (bin, blen);
  char *t2 = encode (b, SFDO_PROF_TEXT, &tlen);
  assert_int_equal (tlen, strlen (t));
  assert_memory_equal (t2, t, tlen);
  free (bin);
  free (t2);
  sfdo_profile_free (a);
  sfdo_profile_free (b);
}

static void
test_text_binary_text_is_byte_identical (void **state)
{
  (void) state;
  struct sfdo_profile *p = build_rich ();
  char *t = text_of (p);
  assert_text_binary_text_identical (t);
  free (t);
  sfdo_profile_free (p);
}

static void
test_text_output_is_a_fixed_point (void **state)
{
  (void) state;
  struct sfdo_profile *p = build_rich ();
  char *t = text_of (p);
  struct sfdo_profile *q = parse (t);
  char *t2 = text_of (q);
  assert_string_equal (t, t2);
  free (t);
  free (t2);
  sfdo_profile_free (p);
  sfdo_profile_free (q);
}

static void
test_binary_output_is_deterministic (void **state)
{
  (void) state;
  struct sfdo_profile *p = build_rich ();
  struct sfdo_profile *q = copy_via (p, SFDO_PROF_BINARY);
  size_t la, lb;
  unsigned char *a = binary_of (p, &la), *b = binary_of (q, &lb);
  assert_int_equal (la, lb);
  assert_memory_equal (a, b, la);
  free (a);
  free (b);
  sfdo_profile_free (p);
  sfdo_profile_free (q);
}

static void
test_lazily_opened_binary_loads_everything (void **state)
{
  (void) state;
  size_t len;
  struct sfdo_profile *p = build_rich (), *q = NULL;
  unsigned char *bin = binary_of (p, &len);
  char *path = temp_file (bin, len);
  struct sfdo_error err = no_error ();
  assert_int_equal (sfdo_profile_open (path, &q, &err), SFDO_OK);
  assert_int_equal (sfdo_profile_encoding (q), SFDO_PROF_BINARY);
  assert_int_equal (sfdo_profile_nfuncs (q), 3);
  assert_int_equal (sfdo_profile_load_all (q, &err), SFDO_OK);
  check_rich (q);
  assert_profiles_equal (p, q);
  unlink (path);
  free (path);
  free (bin);
  sfdo_profile_free (p);
  sfdo_profile_free (q);
}

/* An instance's entries: its head, or its busiest line without one.  */
static void
test_entries_head_else_busiest_line (void **state)
{
  (void) state;
  struct sfdo_profile *p = sfdo_profile_new ();
  struct sfdo_prof_func *f = sfdo_profile_add_func (p, S (p, "f"), 0);
  sfdo_prof_func_add_line (f, 1, 0, 5);
  sfdo_prof_func_add_line (f, 2, 0, 70);
  sfdo_prof_func_add_line (f, 3, 0, 9);
  assert_int_equal (sfdo_prof_func_entries (f), 70);
  f->head = 4;
  assert_int_equal (sfdo_prof_func_entries (f), 4);
  sfdo_profile_free (p);
}

/* Append FILE and a ';' to the string CTX.  */
static int
list_file (const char *file, size_t len, void *ctx)
{
  char *out = ctx;
  strncat (out, file, len);
  strcat (out, ";");
  return 0;
}

/* Statics keyed by a file as another build named it: found by the
   longest path tail, in memory and in a lazily opened binary profile.  */
static void
check_statics_by_path_tail (struct sfdo_profile *p)
{
  struct sfdo_error err = no_error ();
  struct sfdo_prof_func *f;
  f = sfdo_profile_find_static (p, "helper", "a/x.c", &err);
  assert_non_null (f);
  assert_int_equal (f->total, 11);
  f = sfdo_profile_find_static (p, "helper", "/ci/build/a/x.c", &err);
  assert_non_null (f);
  assert_int_equal (f->total, 11);
  f = sfdo_profile_find_static (p, "helper", "/ci/build/b//./x.c", &err);
  assert_non_null (f);
  assert_int_equal (f->total, 22);
  f = sfdo_profile_find_static (p, "helper", "./src/y.c", &err);
  assert_non_null (f);
  assert_int_equal (f->total, 33);
  /* a/x.c and b/x.c end alike as far as x.c: no guess.  */
  assert_null (sfdo_profile_find_static (p, "helper", "/other/x.c", &err));
  assert_null (sfdo_profile_find_static (p, "helper", "/q/z.c", &err));
  assert_null (sfdo_profile_find_static (p, "nothing", "a/x.c", &err));
  assert_int_equal (err.code, SFDO_OK);
  /* Every file of a name, read from the index.  */
  char files[64] = "";
  assert_int_equal (sfdo_profile_files_of (p, "helper", list_file, files, &err),
                    SFDO_OK);
  /* In no particular order: the index's or the profile's.  */
  assert_int_equal (strlen (files), strlen ("a/x.c;b/x.c;src/y.c;"));
  assert_non_null (strstr (files, "a/x.c;"));
  assert_non_null (strstr (files, "b/x.c;"));
  assert_non_null (strstr (files, "src/y.c;"));
  files[0] = '\0';
  assert_int_equal (sfdo_profile_files_of (p, "nothing", list_file, files, &err),
                    SFDO_OK);
  assert_string_equal (files, "");
}

static void
test_statics_found_by_path_tail (void **state)
{
  (void) state;
  struct sfdo_profile *p = sfdo_profile_new (), *q = NULL;
  build_static (p, "a/x.c", 11, 1, 0);
  build_static (p, "b/x.c", 22, 1, 0);
  build_static (p, "src/y.c", 33, 1, 0);
  struct sfdo_error err = no_error ();
  assert_int_equal (sfdo_profile_finalize (p, &err), SFDO_OK);
  check_statics_by_path_tail (p);
  size_t len;
  unsigned char *bin = binary_of (p, &len);
  char *path = temp_file (bin, len);
  assert_int_equal (sfdo_profile_open (path, &q, &err), SFDO_OK);
  check_statics_by_path_tail (q);
  unlink (path);
  free (path);
  free (bin);
  sfdo_profile_free (p);
  sfdo_profile_free (q);
}

static void
test_read_and_save_use_files (void **state)
{
  (void) state;
  struct sfdo_profile *p = build_rich (), *q = NULL;
  char *path = temp_file ("", 0);
  struct sfdo_error err = no_error ();
  assert_int_equal (sfdo_profile_save (p, path, SFDO_PROF_BINARY, &err),
                    SFDO_OK);
  assert_int_equal (sfdo_profile_read (path, &q, &err), SFDO_OK);
  check_rich (q);
  sfdo_profile_free (q);
  q = (struct sfdo_profile *) 1;
  assert_int_equal (sfdo_profile_read ("/nonexistent/sfdo.prof", &q, &err),
                    SFDO_E_IO);
  assert_null (q);
  assert_string_equal (err.path, "/nonexistent/sfdo.prof");
  err = no_error ();
  assert_int_equal (sfdo_profile_save (p, "/nonexistent/dir/x.prof",
                                       SFDO_PROF_TEXT, &err), SFDO_E_IO);
  unlink (path);
  free (path);
  sfdo_profile_free (p);
}

/* A callee whose name ends in ":digits" must not be read as TOTAL:HEAD.  */
static void
test_names_with_colons_round_trip (void **state)
{
  (void) state;
  struct sfdo_profile *p = sfdo_profile_new ();
  struct sfdo_prof_func *f = sfdo_profile_add_func (p, S (p, "a:1:2"), 0);
  struct sfdo_prof_func *g;
  f->total = 9;
  f->head = 1;
  sfdo_prof_line_add_target (sfdo_prof_func_add_line (f, 0, 0, 6),
                             S (p, "t:3"), 6);
  g = sfdo_prof_func_add_callsite (f, 1, 0, S (p, "x:1"), 0);
  g->total = 3;
  sfdo_prof_func_add_line (g, 0, 0, 3);
  sfdo_prof_func_add_value (f, 0, 0, SFDO_VALUE_ICALL, S (p, "t:3"), 6);
  struct sfdo_profile *q = copy_via (p, SFDO_PROF_TEXT);
  assert_profiles_equal (p, q);
  sfdo_profile_free (p);
  sfdo_profile_free (q);
}

/* Where an awkward string goes in a one-function profile.  */
enum awkward_place
{
  AT_FUNC, AT_FILE, AT_CALLEE, AT_TARGET, AT_ICALL, AT_BUILD_ID, AT_MODE,
  AT_EVENT, AT_TOOL
};

static struct sfdo_profile *
build_awkward (enum awkward_place at, const char *s)
{
  struct sfdo_profile *p = sfdo_profile_new ();
  uint32_t id = S (p, s), f_id = S (p, "f");
  struct sfdo_prof_func *f
    = sfdo_profile_add_func (p, at == AT_FUNC ? id : f_id,
                             at == AT_FILE ? id : 0);
  f->total = 2;
  struct sfdo_prof_line *l = sfdo_prof_func_add_line (f, 0, 0, 1);
  if (at == AT_TARGET)
    sfdo_prof_line_add_target (l, id, 1);
  if (at == AT_ICALL)
    sfdo_prof_func_add_value (f, 0, 0, SFDO_VALUE_ICALL, id, 1);
  if (at == AT_CALLEE)
    sfdo_prof_func_add_line (sfdo_prof_func_add_callsite (f, 1, 0, id, 0),
                             0, 0, 1)->count = 1;
  if (at == AT_BUILD_ID)
    sfdo_profile_add_build_id (p, s);
  if (at == AT_MODE)
    sfdo_profile_add_mode (p, s);
  if (at == AT_EVENT)
    sfdo_profile_add_event (p, s, 1, 1);
  if (at == AT_TOOL)
    sfdo_profile_add_tool (p, s);
  return p;
}

/* P written as text either is refused with an error, or reads back to the
   same profile (its binary encodings are equal).  Returns 0 if neither.  */
static int
text_reads_back_or_is_refused (struct sfdo_profile *p)
{
  char *text = NULL;
  size_t len, la, lb;
  struct sfdo_profile *q = NULL;
  struct sfdo_error err = no_error ();
  FILE *f = open_memstream (&text, &len);
  enum sfdo_errc rc = sfdo_profile_write (p, f, SFDO_PROF_TEXT, "m", &err);
  fclose (f);
  int ok = rc != SFDO_OK ? err.code == rc
    : sfdo_profile_read_mem (text, len, "m", &q, &err) == SFDO_OK;
  if (ok && q)
    {
      unsigned char *a = binary_of (p, &la), *b = binary_of (q, &lb);
      ok = la == lb && memcmp (a, b, la) == 0;
      free (a);
      free (b);
    }
  if (!ok)
    print_message ("not read back: %s\n%s\n", err.msg, text);
  free (text);
  sfdo_profile_free (q);
  return ok;
}

/* The text encoding has no escapes: what it cannot hold, the writer must
   refuse rather than write something that reads back differently.  */
static void
test_text_writer_never_writes_what_it_cannot_read (void **state)
{
  (void) state;
  static const struct { enum awkward_place at; const char *s; } cases[] = {
    { AT_FUNC, "" }, { AT_FUNC, "#f" }, { AT_FUNC, " f" },
    { AT_FUNC, "f\nx:1:1" }, { AT_FUNC, "f\r" }, { AT_FILE, "a.c\r" },
    { AT_FILE, "a\nb" }, { AT_CALLEE, "" }, { AT_CALLEE, "7up" },
    { AT_CALLEE, "a b" }, { AT_CALLEE, "!g" }, { AT_TARGET, "" },
    { AT_TARGET, "a b" }, { AT_ICALL, "a b" }, { AT_ICALL, "" },
    { AT_BUILD_ID, "a b" }, { AT_BUILD_ID, "ab\r" }, { AT_MODE, "i p" },
    { AT_EVENT, "a b" }, { AT_TOOL, "x\ny" },
  };
  int failures = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      struct sfdo_profile *p = build_awkward (cases[i].at, cases[i].s);
      if (!text_reads_back_or_is_refused (p))
        {
          print_message ("case %zu: place %d, string \"%s\"\n", i,
                         cases[i].at, cases[i].s);
          failures++;
        }
      sfdo_profile_free (p);
    }
  assert_int_equal (failures, 0);
}

/* An inline instance's counts added to its callee's own profile: body
   lines sum, nested inlinees and values come along, name and file stay.  */
static void
test_func_add_moves_an_inline_instance (void **state)
{
  (void) state;
  struct sfdo_profile *p = sfdo_profile_new ();
  struct sfdo_prof_func *caller = sfdo_profile_add_func (p, S (p, "caller"), 0);
  struct sfdo_prof_func *inst
    = sfdo_prof_func_add_callsite (caller, 3, 0, S (p, "callee"), 0);
  inst->total = 70;
  inst->head = 7;
  sfdo_prof_func_add_line (inst, 1, 0, 30);
  sfdo_prof_func_add_line (inst, 2, 1, 40);
  sfdo_prof_func_add_value (inst, 2, 1, SFDO_VALUE_DIVMOD, 8, 5);
  struct sfdo_prof_func *deep
    = sfdo_prof_func_add_callsite (inst, 2, 0, S (p, "leaf"), 0);
  deep->total = 9;
  sfdo_prof_func_add_line (deep, 0, 0, 9);
  struct sfdo_prof_func *own = sfdo_profile_add_func (p, S (p, "callee"),
                                                      S (p, "c.c"));
  own->total = 10;
  own->head = 1;
  sfdo_prof_func_add_line (own, 1, 0, 10);
  sfdo_prof_func_add (p, own, inst);
  assert_string_equal (sfdo_profile_str (p, own->name), "callee");
  assert_string_equal (sfdo_profile_str (p, own->file), "c.c");
  assert_int_equal (own->total, 80);
  assert_int_equal (own->head, 8);
  assert_int_equal (sfdo_prof_func_find_line (own, 1, 0)->count, 40);
  assert_int_equal (sfdo_prof_func_find_line (own, 2, 1)->count, 40);
  assert_int_equal (own->nvalues, 1);
  assert_int_equal (own->values[0].entries[0].value, 8);
  assert_int_equal (own->ncallsites, 1);
  assert_int_equal (own->callsites[0].callee->total, 9);
  /* The instance itself is left as it was.  */
  assert_int_equal (inst->total, 70);
  assert_int_equal (inst->nlines, 2);
  sfdo_profile_free (p);
}

static void
test_strings_are_interned (void **state)
{
  (void) state;
  struct sfdo_profile *p = sfdo_profile_new ();
  assert_int_equal (S (p, ""), 0);
  uint32_t a = S (p, "main");
  assert_int_not_equal (a, 0);
  assert_int_equal (sfdo_profile_intern (p, "main.c", 4), a);
  assert_int_not_equal (S (p, "main.c"), a);
  assert_string_equal (sfdo_profile_str (p, a), "main");
  assert_string_equal (sfdo_profile_str (p, 0), "");
  assert_string_equal (sfdo_profile_str (p, 0xfffffff0u), "");
  assert_string_equal (sfdo_prof_value_kind_name (SFDO_VALUE_ICALL), "icall");
  assert_string_equal (sfdo_prof_value_kind_name (SFDO_VALUE_DIVMOD),
                       "divmod");
  assert_string_equal (sfdo_prof_value_kind_name (SFDO_VALUE_MEMSIZE),
                       "memsize");
  assert_null (sfdo_prof_value_kind_name (SFDO_VALUE_NKINDS));
  sfdo_profile_free (p);
}

/* --- The FORMAT.md example ----------------------------------------------- */

static const char format_example[] =
  "# sfdo-profile: 1\n"
  "# build-id: 5a1c9e0f...\n"
  "# mode: ip\n"
  "# event: cycles:u period=100003 samples=4512\n"
  "# tool: sfdo-convert 0.1.0\n"
  "# samples: used=4490 dropped=22\n"
  "main:1830000:1\n"
  " 0: 1\n"
  " 3: 100000\n"
  " 4.2: 90000 compute:80000 helper:10000\n"
  " 5: sum_array:1640000\n"
  "  1: 820000\n"
  "  2: 820000\n"
  " !CFGChecksum: 3141592653\n"
  " !File: demo.c\n"
  " !Values: 4.2 divmod 8:70000 3:20000\n";

static void
check_example_header (struct sfdo_profile *p)
{
  struct sfdo_prof_header *h = sfdo_profile_header (p);
  assert_int_equal (h->version, 1);
  assert_int_equal (h->nbuild_ids, 1);
  assert_string_equal (sfdo_profile_str (p, h->build_ids[0]), "5a1c9e0f...");
  assert_int_equal (h->nmodes, 1);
  assert_string_equal (sfdo_profile_str (p, h->modes[0]), "ip");
  assert_int_equal (h->ntools, 1);
  assert_string_equal (sfdo_profile_str (p, h->tools[0]),
                       "sfdo-convert 0.1.0");
  assert_int_equal (h->nevents, 1);
  assert_string_equal (sfdo_profile_str (p, h->events[0].name), "cycles:u");
  assert_int_equal (h->events[0].period, 100003);
  assert_int_equal (h->events[0].samples, 4512);
  assert_int_equal (h->samples_used, 4490);
  assert_int_equal (h->samples_dropped, 22);
}

static void
test_format_example_fields_land_in_place (void **state)
{
  (void) state;
  struct sfdo_profile *p = parse (format_example);
  check_example_header (p);
  assert_int_equal (sfdo_profile_nfuncs (p), 1);
  struct sfdo_prof_func *f = find (p, "main", "demo.c");
  assert_ptr_equal (f, func_at (p, 0));
  assert_null (sfdo_profile_find (p, "main", NULL, NULL));
  assert_int_equal (f->total, 1830000);
  assert_int_equal (f->head, 1);
  assert_true (f->has_checksum);
  assert_int_equal (f->checksum, 3141592653u);
  assert_int_equal (f->nlines, 3);
  check_line (p, f, 0, 0, 0, 1);
  check_line (p, f, 1, 3, 0, 100000);
  check_line (p, f, 2, 4, 2, 90000);
  check_target (p, &f->lines[2], 0, "compute", 80000);
  check_target (p, &f->lines[2], 1, "helper", 10000);
  assert_int_equal (f->nvalues, 1);
  check_site (&f->values[0], 4, 2, SFDO_VALUE_DIVMOD, 2);
  check_entry (&f->values[0], 0, 8, 70000);
  check_entry (&f->values[0], 1, 3, 20000);
  assert_int_equal (f->ncallsites, 1);
  struct sfdo_prof_func *sa
    = check_callsite (p, f, 0, 5, 0, "sum_array", "", 1640000);
  assert_int_equal (sa->head, 0);
  assert_false (sa->has_checksum);
  check_line (p, sa, 0, 1, 0, 820000);
  check_line (p, sa, 1, 2, 0, 820000);
  sfdo_profile_free (p);
}

static void
test_format_example_survives_binary (void **state)
{
  (void) state;
  struct sfdo_profile *p = parse (format_example);
  char *t = text_of (p);
  assert_text_binary_text_identical (t);
  free (t);
  sfdo_profile_free (p);
}

static void
test_comments_blank_lines_and_cr_are_ignored (void **state)
{
  (void) state;
  struct sfdo_profile *a = parse ("f:10:2\n 1: 10\n");
  struct sfdo_profile *b
    = parse ("# hello\n\n# unknown-key: x\r\nf:10:2\r\n\n#x\n 1: 10\r\n");
  assert_same_text (a, b);
  sfdo_profile_free (a);
  sfdo_profile_free (b);
}

static void
test_empty_input_is_an_empty_profile (void **state)
{
  (void) state;
  struct sfdo_profile *p = decode ("", 0);
  assert_int_equal (sfdo_profile_nfuncs (p), 0);
  assert_int_equal (sfdo_profile_total (p), 0);
  assert_int_equal (sfdo_profile_header (p)->version, SFDO_PROFILE_VERSION);
  sfdo_profile_free (p);
}

static void
test_divmod_accepts_int64_min (void **state)
{
  (void) state;
  struct sfdo_profile *p
    = parse ("f:1:1\n 0: 1\n !Values: 0 divmod -9223372036854775808:1\n");
  struct sfdo_prof_func *f = func_at (p, 0);
  assert_int_equal (f->nvalues, 1);
  check_entry (&f->values[0], 0, (uint64_t) INT64_MIN, 1);
  sfdo_profile_free (p);
}

/* --- Merge --------------------------------------------------------------- */

static struct sfdo_profile *
build_other (void)
{
  struct sfdo_profile *p = sfdo_profile_new ();
  struct sfdo_prof_func *f = sfdo_profile_add_func (p, S (p, "main"), 0);
  struct sfdo_prof_func *sa;
  sfdo_profile_add_build_id (p, "0badf00d");
  sfdo_profile_add_mode (p, "ip");
  sfdo_profile_add_event (p, "cycles:u", 100003, 100);
  sfdo_profile_add_tool (p, "sfdo-convert 0.2.0");
  sfdo_profile_add_producer (p, "clang 14.0.6");
  sfdo_profile_add_producer (p, "GCC 12.2.0");
  f->total = 1050;
  f->head = 2;
  f->checksum = 99;
  f->has_checksum = 1;
  sfdo_prof_line_add_target (sfdo_prof_func_add_line (f, 3, 0, 900),
                             S (p, "compute"), 900);
  sfdo_prof_func_add_line (f, 9, 0, 100);
  sfdo_prof_func_add_value (f, 4, 2, SFDO_VALUE_DIVMOD, (uint64_t) -3, 7);
  sa = sfdo_prof_func_add_callsite (f, 5, 0, S (p, "sum_array"), 0);
  sa->total = 50;
  sfdo_prof_func_add_line (sa, 1, 0, 50);
  build_static (p, "b.c", 20, 2, 3);
  sfdo_profile_add_func (p, S (p, "zeta"), 0)->total = 5;
  return p;
}

static struct sfdo_profile *
build_third (void)
{
  return parse ("main:3:0\n 0: 3\ngamma:1:1\n 2: 1\n !File: g.c\n");
}

static void
test_merge_with_empty_is_identity (void **state)
{
  (void) state;
  struct sfdo_profile *a = build_rich ();
  struct sfdo_profile *left = merged (copy (a), sfdo_profile_new (), 1);
  struct sfdo_profile *right = merged (sfdo_profile_new (), copy (a), 1);
  assert_same_text (left, a);
  assert_same_text (right, a);
  check_rich (right);
  sfdo_profile_free (a);
  sfdo_profile_free (left);
  sfdo_profile_free (right);
}

static void
test_merge_is_commutative (void **state)
{
  (void) state;
  struct sfdo_profile *a = build_rich (), *b = build_other ();
  struct sfdo_profile *ab = merged (copy (a), copy (b), 1);
  struct sfdo_profile *ba = merged (copy (b), copy (a), 1);
  assert_same_text (ab, ba);
  struct sfdo_prof_func *f = find (ab, "main", NULL);
  assert_int_equal (f->total, 1831018 + 1050);
  assert_int_equal (f->head, 3);
  assert_int_equal (f->checksum, 3141592653u);
  assert_int_equal (sfdo_prof_func_find_line (f, 3, 0)->count, 100900);
  assert_int_equal (sfdo_prof_func_find_line (f, 9, 0)->count, 100);
  assert_int_equal (find (ab, "helper", "b.c")->total, 320);
  assert_int_equal (find (ab, "zeta", NULL)->total, 5);
  assert_int_equal (sfdo_profile_nfuncs (ab), 4);
  sfdo_profile_free (a);
  sfdo_profile_free (b);
  sfdo_profile_free (ab);
  sfdo_profile_free (ba);
}

static void
test_merge_is_associative (void **state)
{
  (void) state;
  struct sfdo_profile *a = build_rich (), *b = build_other ();
  struct sfdo_profile *c = build_third ();
  struct sfdo_profile *ab_c = merged (merged (copy (a), copy (b), 1),
                                      copy (c), 1);
  struct sfdo_profile *a_bc = merged (copy (a), merged (copy (b), copy (c), 1),
                                      1);
  assert_same_text (ab_c, a_bc);
  assert_int_equal (find (ab_c, "main", NULL)->total, 1831018 + 1050 + 3);
  assert_int_equal (find (ab_c, "gamma", "g.c")->total, 1);
  sfdo_profile_free (a);
  sfdo_profile_free (b);
  sfdo_profile_free (c);
  sfdo_profile_free (ab_c);
  sfdo_profile_free (a_bc);
}

static void
test_merge_unites_header_sets (void **state)
{
  (void) state;
  struct sfdo_profile *p = merged (build_rich (), build_other (), 1);
  struct sfdo_prof_header *h = sfdo_profile_header (p);
  assert_int_equal (h->nbuild_ids, 3);
  assert_string_equal (sfdo_profile_str (p, h->build_ids[0]), "0badf00d");
  assert_string_equal (sfdo_profile_str (p, h->build_ids[2]), "ffee00");
  assert_int_equal (h->nmodes, 2);
  assert_int_equal (h->ntools, 2);
  assert_int_equal (h->nevents, 3);
  assert_string_equal (sfdo_profile_str (p, h->events[1].name), "cycles:u");
  assert_int_equal (h->events[1].period, 100003);
  assert_int_equal (h->events[1].samples, 4612);
  assert_int_equal (h->nproducers, 3);
  assert_string_equal (sfdo_profile_str (p, h->producers[0]), "GCC 12.2.0");
  assert_string_equal (sfdo_profile_str (p, h->producers[1]), "GCC 16.2.0");
  assert_string_equal (sfdo_profile_str (p, h->producers[2]),
                       "clang 14.0.6");
  sfdo_profile_free (p);
}

/* --- Producers ----------------------------------------------------------- */

static void
test_producers_give_gcc_majors (void **state)
{
  (void) state;
  unsigned majors[4] = { 0 };
  struct sfdo_profile *p = parse ("# sfdo-profile: 1\n"
                                  "# producer: clang 14.0.6\n"
                                  "# producer: GCC 16.2.0\n"
                                  "# producer: GCC 12.2.0\n"
                                  "# producer: GCC 16.1.0\n"
                                  "# producer: GCC 16.2.0\n"
                                  "f:1:1\n 0: 1\n");
  assert_int_equal (sfdo_profile_header (p)->nproducers, 4);
  assert_int_equal (sfdo_profile_gcc_majors (p, majors, 4), 2);
  assert_int_equal (majors[0], 12);
  assert_int_equal (majors[1], 16);
  majors[0] = 0;
  assert_int_equal (sfdo_profile_gcc_majors (p, majors, 1), 2);
  assert_int_equal (majors[0], 12);
  assert_int_equal (sfdo_profile_gcc_major (p), 16);
  char *t = text_of (p);
  assert_non_null (strstr (t, "# producer: GCC 12.2.0\n"
                              "# producer: GCC 16.1.0\n"
                              "# producer: GCC 16.2.0\n"
                              "# producer: clang 14.0.6\n# samples:"));
  free (t);
  struct sfdo_profile *q = copy_via (p, SFDO_PROF_BINARY);
  assert_profiles_equal (p, q);
  sfdo_profile_free (q);
  sfdo_profile_free (p);
  /* A profile older than the field, or of clang's code alone.  */
  p = parse ("# sfdo-profile: 1\n# producer: clang 14.0.6\nf:1:1\n 0: 1\n");
  assert_int_equal (sfdo_profile_gcc_majors (p, majors, 4), 0);
  assert_int_equal (sfdo_profile_gcc_major (p), 0);
  sfdo_profile_free (p);
  p = parse ("f:1:1\n 0: 1\n");
  assert_int_equal (sfdo_profile_gcc_major (p), 0);
  sfdo_profile_free (p);
}

/* A binary profile without producers ends its header fields where files
   older than them did, and reads with none; one with them reads them, and
   a count of them larger than what follows is refused at its offset.  */
static void
test_binary_producers_are_an_optional_tail (void **state)
{
  (void) state;
  size_t len, len2;
  struct sfdo_profile *p = parse ("# sfdo-profile: 1\n# samples: used=1 "
                                  "dropped=2\nf:1:1\n 0: 1\n");
  unsigned char *b = binary_of (p, &len);
  size_t hdr = (size_t) get_u64 (b, H_HDR_OFF);
  /* No build-id, mode, tool or event; used, dropped: and nothing else.  */
  assert_int_equal (get_u64 (b, H_HDR_SIZE), 6);
  assert_memory_equal (b + hdr, "\0\0\0\0\1\2", 6);
  struct sfdo_profile *q = decode (b, len);
  assert_int_equal (sfdo_profile_header (q)->nproducers, 0);
  sfdo_profile_free (q);
  sfdo_profile_add_producer (p, "GCC 16.2.0");
  unsigned char *b2 = binary_of (p, &len2);
  hdr = (size_t) get_u64 (b2, H_HDR_OFF);
  assert_int_equal (get_u64 (b2, H_HDR_SIZE), 8);
  assert_int_equal (b2[hdr + 6], 1);
  q = decode (b2, len2);
  assert_int_equal (sfdo_profile_gcc_major (q), 16);
  sfdo_profile_free (q);
  b2[hdr + 6] = 2;
  expect_binary_error (b2, len2, SFDO_E_TRUNCATED, SFDO_E_TRUNCATED);
  b2[hdr + 6] = 1;
  b2[hdr + 7] = 0x7f;
  expect_binary_error (b2, len2, SFDO_E_MALFORMED, SFDO_E_RANGE);
  free (b);
  free (b2);
  sfdo_profile_free (p);
}

static void
check_tripled (struct sfdo_profile *p)
{
  struct sfdo_prof_func *f = find (p, "main", NULL);
  assert_int_equal (f->total, 3 * 1831018);
  assert_int_equal (f->head, 3);
  assert_int_equal (f->checksum, 3141592653u);
  check_line (p, f, 2, 4, 2, 270000);
  check_target (p, &f->lines[2], 0, "compute", 240000);
  check_icall (p, &f->values[0], 0, "compute", 240000);
  check_entry (&f->values[1], 0, 8, 210000);
  check_entry (&f->values[2], 0, 2, 180);
  /* Supporting samples are not weighted.  */
  check_icall (p, &f->values[3], 0, "compute", 24);
  /* Nor are call sites: one binary had one.  */
  check_icall (p, &f->values[4], 0, "helper", 1);
  check_entry (&f->values[5], 0, 64, 300);
  struct sfdo_prof_func *sa = f->callsites[1].callee;
  assert_int_equal (sa->total, 3 * 1641010);
  assert_int_equal (sa->head, 15);
  struct sfdo_prof_func *leaf = sa->callsites[0].callee->callsites[0].callee;
  assert_int_equal (leaf->total, 30);
  check_line (p, leaf, 0, 0, 0, 30);
  check_target (p, &leaf->lines[0], 0, "puts", 30);
  assert_int_equal (find (p, "helper", "a.c")->total, 1500);
}

static void
test_merge_weight_multiplies_every_count (void **state)
{
  (void) state;
  struct sfdo_profile *p = merged (sfdo_profile_new (), build_rich (), 3);
  check_tripled (p);
  sfdo_profile_free (p);
}

static struct sfdo_profile *
build_big (void)
{
  struct sfdo_profile *p = sfdo_profile_new ();
  struct sfdo_prof_func *f = sfdo_profile_add_func (p, S (p, "f"), 0);
  f->total = BIG;
  f->head = BIG;
  sfdo_prof_line_add_target (sfdo_prof_func_add_line (f, 0, 0, BIG),
                             S (p, "g"), BIG);
  sfdo_prof_func_add_value (f, 0, 0, SFDO_VALUE_MEMSIZE, 8, BIG);
  return p;
}

static void
check_saturated (struct sfdo_profile *p)
{
  struct sfdo_prof_func *f = func_at (p, 0);
  assert_int_equal (f->total, UINT64_MAX);
  assert_int_equal (f->head, UINT64_MAX);
  check_line (p, f, 0, 0, 0, UINT64_MAX);
  check_target (p, &f->lines[0], 0, "g", UINT64_MAX);
  check_entry (&f->values[0], 0, 8, UINT64_MAX);
}

static void
test_merge_saturates_instead_of_wrapping (void **state)
{
  (void) state;
  struct sfdo_profile *sum = merged (build_big (), build_big (), 1);
  struct sfdo_profile *scaled = merged (sfdo_profile_new (), build_big (), 4);
  struct sfdo_profile *max = merged (sfdo_profile_new (), build_rich (),
                                     UINT64_MAX);
  check_saturated (sum);
  check_saturated (scaled);
  assert_int_equal (find (max, "main", NULL)->total, UINT64_MAX);
  assert_int_equal (sfdo_profile_total (max), UINT64_MAX);
  sfdo_profile_free (sum);
  sfdo_profile_free (scaled);
  sfdo_profile_free (max);
}

static void
test_saturated_counts_round_trip (void **state)
{
  (void) state;
  struct sfdo_profile *p = merged (build_big (), build_big (), 1);
  struct sfdo_profile *t = copy_via (p, SFDO_PROF_TEXT);
  struct sfdo_profile *b = copy_via (p, SFDO_PROF_BINARY);
  check_saturated (t);
  check_saturated (b);
  sfdo_profile_free (p);
  sfdo_profile_free (t);
  sfdo_profile_free (b);
}

/* Offsets 3 and 4 move down by 2, 7 is gone, 0 stays: main's lines,
   values and callsites follow; its inlinees' own records do not.  */
static int64_t
move_down_two (uint32_t offset, void *ctx)
{
  (void) ctx;
  return offset == 7 ? -1 : offset >= 3 ? (int64_t) offset + 2 : offset;
}

static void
test_copy_moved_moves_own_records_only (void **state)
{
  (void) state;
  struct sfdo_profile *p = sfdo_profile_new ();
  struct sfdo_error err = no_error ();
  build_main (p);
  assert_int_equal (sfdo_profile_finalize (p, &err), SFDO_OK);
  const struct sfdo_prof_func *f = func_at (p, 0);
  struct sfdo_offset_move move = { move_down_two, NULL };
  struct sfdo_prof_func *g = sfdo_prof_func_copy_moved (p, f, &move);
  assert_int_equal (g->total, f->total);
  assert_int_equal (g->head, f->head);
  assert_int_equal (g->nlines, 3);
  check_line (p, g, 0, 0, 0, 1);
  check_line (p, g, 1, 5, 0, 100000);
  check_line (p, g, 2, 6, 2, 90000);
  check_target (p, &g->lines[2], 0, "compute", 80000);
  /* The values at 7 (memsize, align) are left out with their line.  */
  assert_int_equal (g->nvalues, 5);
  check_site (&g->values[0], 6, 2, SFDO_VALUE_ICALL, 2);
  check_site (&g->values[4], 6, 2, SFDO_VALUE_CALL_SITES, 1);
  assert_int_equal (g->ncallsites, f->ncallsites);
  for (size_t i = 0; i < g->ncallsites; i++)
    {
      uint32_t want = f->callsites[i].offset;
      assert_int_equal (g->callsites[i].offset, want >= 3 ? want + 2 : want);
      const struct sfdo_prof_func *a = f->callsites[i].callee;
      const struct sfdo_prof_func *b = g->callsites[i].callee;
      assert_int_equal (b->nlines, a->nlines);
      for (size_t k = 0; k < a->nlines; k++)
        assert_int_equal (b->lines[k].offset, a->lines[k].offset);
    }
  sfdo_prof_func_free (g);
  sfdo_profile_free (p);
}

/* Everything of build_rich(), added twice and finalized: all doubled.  */
static void
test_finalize_coalesces_duplicates (void **state)
{
  (void) state;
  struct sfdo_profile *p = sfdo_profile_new ();
  struct sfdo_error err = no_error ();
  build_main (p);
  struct sfdo_prof_func *f = build_main (p);
  f->checksum = 5;  /* a conflict: the larger checksum wins */
  assert_int_equal (sfdo_profile_finalize (p, &err), SFDO_OK);
  assert_int_equal (sfdo_profile_nfuncs (p), 1);
  f = func_at (p, 0);
  assert_int_equal (f->total, 2 * 1831018);
  assert_int_equal (f->checksum, 3141592653u);
  assert_int_equal (f->nlines, 3);
  check_line (p, f, 2, 4, 2, 180000);
  assert_int_equal (f->lines[2].ntargets, 2);
  check_target (p, &f->lines[2], 0, "compute", 160000);
  assert_int_equal (f->nvalues, 7);
  check_entry (&f->values[1], 1, (uint64_t) -3, 40000);
  assert_int_equal (f->ncallsites, 2);
  struct sfdo_prof_func *leaf
    = f->callsites[1].callee->callsites[0].callee->callsites[0].callee;
  check_line (p, leaf, 0, 0, 0, 20);
  check_target (p, &leaf->lines[0], 0, "puts", 20);
  sfdo_profile_free (p);
}

static void
test_reader_coalesces_duplicates (void **state)
{
  (void) state;
  struct sfdo_profile *p = parse ("f:5:1\n 1: 5 g:2\n 1: 3 g:1\n"
                                  " !Values: 1 memsize 8:1 8:2\n"
                                  "f:4:1\n 1: 4 h:4\n");
  struct sfdo_prof_func *f = func_at (p, 0);
  assert_int_equal (sfdo_profile_nfuncs (p), 1);
  assert_int_equal (f->total, 9);
  assert_int_equal (f->head, 2);
  assert_int_equal (f->nlines, 1);
  check_line (p, f, 0, 1, 0, 12);
  check_target (p, &f->lines[0], 0, "h", 4);
  check_target (p, &f->lines[0], 1, "g", 3);
  assert_int_equal (f->nvalues, 1);
  assert_int_equal (f->values[0].nentries, 1);
  check_entry (&f->values[0], 0, 8, 3);
  sfdo_profile_free (p);
}

static void
test_profile_total_saturates (void **state)
{
  (void) state;
  struct sfdo_profile *p
    = parse ("f:18446744073709551614:0\ng:18446744073709551614:0\n");
  assert_int_equal (sfdo_profile_total (p), UINT64_MAX);
  sfdo_profile_free (p);
}

/* --- Overlap ------------------------------------------------------------- */

static void
assert_overlap (struct sfdo_profile *a, struct sfdo_profile *b, double func,
                double line)
{
  double fl = -1, ll = -1;
  struct sfdo_error err = no_error ();
  assert_int_equal (sfdo_profile_overlap (a, b, &fl, &ll, &err), SFDO_OK);
  if (fl - func > 1e-9 || func - fl > 1e-9 || ll - line > 1e-9
      || line - ll > 1e-9)
    print_message ("overlap %.12f %.12f, want %.12f %.12f\n", fl, ll, func,
                   line);
  assert_true (fl - func <= 1e-9 && func - fl <= 1e-9);
  assert_true (ll - line <= 1e-9 && line - ll <= 1e-9);
}

static void
test_overlap_of_a_profile_with_itself_is_one (void **state)
{
  (void) state;
  struct sfdo_profile *a = build_rich (), *b = build_rich ();
  struct sfdo_profile *e1 = sfdo_profile_new (), *e2 = sfdo_profile_new ();
  assert_overlap (a, b, 1.0, 1.0);
  assert_overlap (a, a, 1.0, 1.0);
  assert_overlap (e1, e2, 1.0, 1.0);
  sfdo_profile_free (a);
  sfdo_profile_free (b);
  sfdo_profile_free (e1);
  sfdo_profile_free (e2);
}

static void
test_overlap_of_disjoint_profiles_is_zero (void **state)
{
  (void) state;
  struct sfdo_profile *a = parse ("f:10:1\n 1: 10\n");
  struct sfdo_profile *b = parse ("g:10:1\n 1: 10\nf:5:0\n 1: 5\n !File: x.c\n");
  assert_overlap (a, b, 0.0, 0.0);
  assert_overlap (b, a, 0.0, 0.0);
  sfdo_profile_free (a);
  sfdo_profile_free (b);
}

/* Functions: f .6/.2, g .4/0, h 0/.8 -> .2.  Lines (of 100 each):
   f:1 .1/.2, f:2 .5/0, g:1 .4/0, h:1 0/.8 -> .1.  */
static void
test_overlap_partial_matches_hand_computation (void **state)
{
  (void) state;
  struct sfdo_profile *a = parse ("f:60:1\n 1: 10\n 2: 50\ng:40:1\n 1: 40\n");
  struct sfdo_profile *b = parse ("f:20:1\n 1: 20\nh:80:1\n 1: 80\n");
  assert_overlap (a, b, 0.2, 0.1);
  assert_overlap (b, a, 0.2, 0.1);
  sfdo_profile_free (a);
  sfdo_profile_free (b);
}

/* The same offset in f's body and in an inlinee of f are different keys. */
static void
test_overlap_keys_lines_by_inline_path (void **state)
{
  (void) state;
  struct sfdo_profile *a = parse ("f:10:1\n 0: 10\n");
  struct sfdo_profile *b = parse ("f:10:1\n 0: g:10\n  0: 10\n");
  assert_overlap (a, b, 1.0, 0.0);
  sfdo_profile_free (a);
  sfdo_profile_free (b);
}

/* --- Lookup in a lazily opened binary profile ---------------------------- */

static struct sfdo_profile *
open_binary_of (struct sfdo_profile *p, char **path)
{
  size_t len;
  unsigned char *bin = binary_of (p, &len);
  struct sfdo_profile *q = NULL;
  struct sfdo_error err = no_error ();
  *path = temp_file (bin, len);
  free (bin);
  assert_int_equal (sfdo_profile_open (*path, &q, &err), SFDO_OK);
  assert_int_equal (sfdo_profile_encoding (q), SFDO_PROF_BINARY);
  return q;
}

static void
assert_absent (struct sfdo_profile *p, const char *name, const char *file)
{
  struct sfdo_error err = no_error ();
  assert_null (sfdo_profile_find (p, name, file, &err));
  assert_int_equal (err.code, SFDO_OK);
}

static void
test_find_in_lazy_binary_keeps_statics_apart (void **state)
{
  (void) state;
  char *path;
  struct sfdo_profile *p = build_rich ();
  struct sfdo_profile *q = open_binary_of (p, &path);
  struct sfdo_prof_func *a = find (q, "helper", "a.c");
  struct sfdo_prof_func *b = find (q, "helper", "b.c");
  struct sfdo_prof_func *m = find (q, "main", NULL);
  check_rich_static (q, a, "a.c", 500);
  check_rich_static (q, b, "b.c", 300);
  check_rich_inlinees (q, m);
  assert_ptr_equal (find (q, "main", ""), m);
  assert_ptr_equal (find (q, "helper", "a.c"), a);
  assert_absent (q, "helper", NULL);
  assert_absent (q, "helper", "c.c");
  assert_absent (q, "main", "a.c");
  assert_absent (q, "nosuch", NULL);
  assert_ptr_equal (func_at (q, 0), m);
  unlink (path);
  free (path);
  sfdo_profile_free (p);
  sfdo_profile_free (q);
}

static void
test_find_in_lazy_binary_finds_each_of_many (void **state)
{
  (void) state;
  char *path, name[32];
  struct sfdo_profile *p = sfdo_profile_new ();
  for (unsigned i = 0; i < 300; i++)
    {
      snprintf (name, sizeof name, "fn%u", i);
      struct sfdo_prof_func *f
        = sfdo_profile_add_func (p, S (p, name), i % 3 ? 0 : S (p, "s.c"));
      f->total = f->head = i + 1;
    }
  struct sfdo_profile *q = open_binary_of (p, &path);
  for (unsigned i = 0; i < 300; i++)
    {
      snprintf (name, sizeof name, "fn%u", i);
      assert_int_equal (find (q, name, i % 3 ? NULL : "s.c")->head, i + 1);
      assert_absent (q, name, i % 3 ? "s.c" : NULL);
    }
  assert_absent (q, "fn300", NULL);
  unlink (path);
  free (path);
  sfdo_profile_free (p);
  sfdo_profile_free (q);
}

static void
test_find_in_text_profile (void **state)
{
  (void) state;
  struct sfdo_profile *p = build_rich ();
  struct sfdo_error err = no_error ();
  assert_int_equal (sfdo_profile_finalize (p, &err), SFDO_OK);
  assert_int_equal (find (p, "helper", "b.c")->head, 30);
  assert_absent (p, "helper", NULL);
  sfdo_profile_free (p);
}

/* --- Malformed text ------------------------------------------------------ */

/* Reading TEXT fails with CODE at LINE, and a column in [COL_LO, COL_HI]
   (COL_HI 0: the column is not checked).  */
static void
expect_text_error (const char *text, enum sfdo_errc code, uint32_t line,
                   uint32_t col_lo, uint32_t col_hi)
{
  struct sfdo_profile *p = (struct sfdo_profile *) 1;
  struct sfdo_error err = no_error ();
  enum sfdo_errc rc
    = sfdo_profile_read_mem (text, strlen (text), "t.prof", &p, &err);
  if (rc != code || err.line != line
      || (col_hi && (err.col < col_lo || err.col > col_hi)))
    show_error (&err);
  assert_int_equal (rc, code);
  assert_null (p);
  assert_int_equal (err.code, code);
  assert_string_equal (err.path, "t.prof");
  assert_int_equal (err.line, line);
  if (col_hi)
    assert_in_range (err.col, col_lo, col_hi);
}

static void
test_text_bad_number_is_malformed (void **state)
{
  (void) state;
  expect_text_error ("main:1x:1\n", SFDO_E_MALFORMED, 1, 6, 7);
  expect_text_error ("f:10:1\n 3: 1x0\n", SFDO_E_MALFORMED, 2, 5, 6);
  expect_text_error ("f:10:1\n 3: 10 g:x\n", SFDO_E_MALFORMED, 2, 8, 10);
  expect_text_error ("f:-1:1\n", SFDO_E_MALFORMED, 1, 3, 3);
  expect_text_error ("f:10:1\n 3x: 10\n", SFDO_E_MALFORMED, 2, 2, 3);
  expect_text_error ("f:10:1\n !CFGChecksum: abc\n", SFDO_E_MALFORMED, 2, 16,
                     16);
  expect_text_error ("# event: cycles:u period=x samples=1\n",
                     SFDO_E_MALFORMED, 1, 0, 0);
  expect_text_error ("# samples: used=1 dropped=\n", SFDO_E_MALFORMED, 1, 0,
                     0);
}

static void
test_text_missing_colon_is_malformed (void **state)
{
  (void) state;
  expect_text_error ("main 10 1\n", SFDO_E_MALFORMED, 1, 0, 0);
  expect_text_error ("main:10\n", SFDO_E_MALFORMED, 1, 0, 0);
  expect_text_error ("f:10:1\n 3 10\n", SFDO_E_MALFORMED, 2, 0, 0);
  expect_text_error ("f:10:1\n 3: 10\n 4: g\n", SFDO_E_MALFORMED, 3, 0, 0);
  expect_text_error ("f:10:1\n !Values: 3 memsize 8\n", SFDO_E_MALFORMED, 2,
                     0, 0);
}

static void
test_text_bad_indentation_is_malformed (void **state)
{
  (void) state;
  expect_text_error (" 1: 5\n", SFDO_E_MALFORMED, 1, 0, 0);
  expect_text_error ("f:10:1\n 1: 5\n   2: 5\n", SFDO_E_MALFORMED, 3, 0, 0);
  expect_text_error ("f:10:1\n  1: 5\n", SFDO_E_MALFORMED, 2, 0, 0);
  expect_text_error ("f:10:1\n 1: g:5\n  1: 5\n   2: 5\n", SFDO_E_MALFORMED,
                     4, 0, 0);
  expect_text_error ("f:10:1\n\t1: 5\n", SFDO_E_MALFORMED, 2, 0, 0);
}

/* A function with DEPTH nested inlined callees, in text.  */
static char *
nested_text (unsigned depth)
{
  size_t cap = (size_t) (depth + 2) * (depth + 16), len = 0;
  char *t = malloc (cap);
  len += (size_t) sprintf (t + len, "f:1:1\n");
  for (unsigned i = 1; i <= depth; i++)
    len += (size_t) sprintf (t + len, "%*s0: g:1\n", (int) i, "");
  sprintf (t + len, "%*s0: 1\n", (int) depth + 1, "");
  return t;
}

static void
test_text_nesting_deeper_than_max_is_rejected (void **state)
{
  (void) state;
  char *t = nested_text (SFDO_PROFILE_MAX_DEPTH + 1);
  struct sfdo_profile *p = (struct sfdo_profile *) 1;
  struct sfdo_error err = no_error ();
  assert_int_equal (sfdo_profile_read_mem (t, strlen (t), "t", &p, &err),
                    SFDO_E_TOO_DEEP);
  assert_null (p);
  assert_in_range (err.line, SFDO_PROFILE_MAX_DEPTH + 2,
                   SFDO_PROFILE_MAX_DEPTH + 3);
  free (t);
  t = nested_text (5000);
  err = no_error ();
  assert_int_equal (sfdo_profile_read_mem (t, strlen (t), "t", &p, &err),
                    SFDO_E_TOO_DEEP);
  free (t);
}

static void
test_max_depth_is_accepted_in_both_encodings (void **state)
{
  (void) state;
  char *t = nested_text (SFDO_PROFILE_MAX_DEPTH);
  struct sfdo_profile *p = parse (t);
  char *canonical = text_of (p);
  assert_text_binary_text_identical (canonical);
  free (canonical);
  free (t);
  sfdo_profile_free (p);
}

static void
test_text_unknown_value_kind_is_malformed (void **state)
{
  (void) state;
  expect_text_error ("f:10:1\n 1: 10\n !Values: 1 bogus 8:1\n",
                     SFDO_E_MALFORMED, 3, 13, 17);
}

static void
test_text_newer_version_is_rejected (void **state)
{
  (void) state;
  expect_text_error ("# sfdo-profile: 2\nf:1:1\n", SFDO_E_VERSION, 1, 0, 0);
  expect_text_error ("# sfdo-profile: x\n", SFDO_E_MALFORMED, 1, 0, 0);
}

static void
test_text_number_overflow_is_range (void **state)
{
  (void) state;
  expect_text_error ("f:18446744073709551616:1\n", SFDO_E_RANGE, 1, 3, 22);
  expect_text_error ("f:1:99999999999999999999999\n", SFDO_E_RANGE, 1, 5, 27);
  expect_text_error ("f:1:1\n 4294967296: 1\n", SFDO_E_RANGE, 2, 2, 11);
  expect_text_error ("f:1:1\n 1.4294967296: 1\n", SFDO_E_RANGE, 2, 4, 13);
  expect_text_error ("f:1:1\n 1: 18446744073709551616\n", SFDO_E_RANGE, 2, 5,
                     24);
  expect_text_error ("f:1:1\n !Values: 0 divmod -9223372036854775809:1\n",
                     SFDO_E_RANGE, 2, 20, 40);
  expect_text_error ("f:1:1\n !Values: 0 divmod 9223372036854775808:1\n",
                     SFDO_E_RANGE, 2, 20, 38);
  expect_text_error ("f:1:1\n !CFGChecksum: 18446744073709551616\n",
                     SFDO_E_RANGE, 2, 16, 35);
}

static void
test_text_negative_memsize_is_rejected (void **state)
{
  (void) state;
  struct sfdo_profile *p = NULL;
  struct sfdo_error err = no_error ();
  const char *t = "f:1:1\n !Values: 0 memsize -1:1\n";
  enum sfdo_errc rc = sfdo_profile_read_mem (t, strlen (t), "t", &p, &err);
  assert_true (rc == SFDO_E_MALFORMED || rc == SFDO_E_RANGE);
  assert_int_equal (err.line, 2);
}

/* --- Malformed binary ---------------------------------------------------- */

/* One function "f" with one memsize histogram; the value kind is byte 9 of
   the record, after name, file, total, head, flags, nlines, nvalues, offset
   and discriminator (one byte each).  */
static unsigned char *
small_binary (size_t *len)
{
  struct sfdo_profile *p = sfdo_profile_new ();
  struct sfdo_prof_func *f = sfdo_profile_add_func (p, S (p, "f"), 0);
  f->total = 5;
  f->head = 1;
  sfdo_prof_func_add_value (f, 0, 0, SFDO_VALUE_MEMSIZE, 5, 1);
  sfdo_profile_add_build_id (p, "ab");
  unsigned char *b = binary_of (p, len);
  sfdo_profile_free (p);
  return b;
}

static void
test_binary_bad_magic_is_not_binary (void **state)
{
  (void) state;
  size_t len;
  unsigned char *b = small_binary (&len);
  struct sfdo_profile *p = (struct sfdo_profile *) 1;
  struct sfdo_error err = no_error ();
  b[1] = 'X';
  assert_int_not_equal (sfdo_profile_read_mem (b, len, "bin", &p, &err),
                        SFDO_OK);
  assert_null (p);
  /* Read as text: its first line is no function line.  */
  assert_true (err.code == SFDO_E_BAD_MAGIC || err.line == 1);
  free (b);
}

static void
test_binary_newer_version_is_rejected (void **state)
{
  (void) state;
  size_t len;
  unsigned char *b = small_binary (&len);
  b[H_VERSION] = SFDO_PROFILE_VERSION + 1;
  expect_binary_error (b, len, SFDO_E_VERSION, SFDO_E_VERSION);
  expect_lazy_error (b, len);
  b[H_VERSION] = 0;
  b[H_VERSION + 3] = 1;
  expect_binary_error (b, len, SFDO_E_VERSION, SFDO_E_VERSION);
  free (b);
}

static void
test_binary_every_truncation_is_an_error (void **state)
{
  (void) state;
  size_t len;
  struct sfdo_profile *p = build_rich ();
  unsigned char *b = binary_of (p, &len);
  for (size_t n = 1; n < len; n++)
    {
      unsigned char *prefix = malloc (n);  /* exactly n bytes, for ASan */
      memcpy (prefix, b, n);
      if (n >= 8)
        expect_binary_error (prefix, n, SFDO_E_TRUNCATED, SFDO_E_MALFORMED);
      else
        {
          struct sfdo_profile *q = NULL;
          assert_int_not_equal (sfdo_profile_read_mem (prefix, n, "bin", &q,
                                                       NULL), SFDO_OK);
        }
      free (prefix);
    }
  for (size_t n = 1; n < len; n += n < 96 ? 1 : 7)
    expect_lazy_error (b, n);
  free (b);
  sfdo_profile_free (p);
}

static void
test_binary_section_past_end_is_rejected (void **state)
{
  (void) state;
  static const size_t fields[] = { H_STR_OFF, H_STR_SIZE, H_HDR_OFF,
                                   H_HDR_SIZE, H_INDEX_OFF, H_REC_OFF,
                                   H_REC_SIZE };
  size_t len;
  unsigned char *b = small_binary (&len);
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
    for (int k = 0; k < 3; k++)
      {
        uint64_t bad[] = { len + 8, UINT64_MAX - 7, (uint64_t) 1 << 62 };
        unsigned char *c = malloc (len);
        memcpy (c, b, len);
        put_u64 (c, fields[i], bad[k]);
        expect_binary_error (c, len, SFDO_E_MALFORMED, SFDO_E_TRUNCATED);
        expect_lazy_error (c, len);
        free (c);
      }
  free (b);
}

static void
test_binary_too_many_functions_is_rejected (void **state)
{
  (void) state;
  size_t len;
  unsigned char *b = small_binary (&len);
  b[H_NFUNCS] = 0xff;
  b[H_NFUNCS + 3] = 0xff;
  expect_binary_error (b, len, SFDO_E_MALFORMED, SFDO_E_TRUNCATED);
  expect_lazy_error (b, len);
  put_u64 (b, H_FILE_SIZE, len + 1);
  b[H_NFUNCS] = 1;
  b[H_NFUNCS + 3] = 0;
  expect_binary_error (b, len, SFDO_E_MALFORMED, SFDO_E_TRUNCATED);
  free (b);
}

static void
test_binary_string_reference_out_of_range (void **state)
{
  (void) state;
  size_t len;
  unsigned char *b = small_binary (&len);
  size_t rec = (size_t) get_u64 (b, H_REC_OFF);
  size_t hdr = (size_t) get_u64 (b, H_HDR_OFF);
  assert_true (get_u64 (b, H_STR_SIZE) < 0x7f);
  assert_int_equal (b[hdr], 1);  /* one build-id */
  assert_true (b[rec] < 0x80 && b[hdr + 1] < 0x80);
  b[rec] = 0x7f;
  expect_binary_error (b, len, SFDO_E_MALFORMED, SFDO_E_RANGE);
  expect_lazy_error (b, len);
  b[rec] = 0;
  b[rec + 1] = 0x7f;  /* the file */
  expect_binary_error (b, len, SFDO_E_MALFORMED, SFDO_E_RANGE);
  free (b);
  b = small_binary (&len);
  b[hdr + 1] = 0x7f;
  expect_binary_error (b, len, SFDO_E_MALFORMED, SFDO_E_RANGE);
  free (b);
}

static void
test_binary_unknown_value_kind_is_rejected (void **state)
{
  (void) state;
  size_t len;
  unsigned char *b = small_binary (&len);
  size_t rec = (size_t) get_u64 (b, H_REC_OFF);
  assert_int_equal (b[rec + 9], SFDO_VALUE_MEMSIZE);
  b[rec + 9] = SFDO_VALUE_NKINDS;
  expect_binary_error (b, len, SFDO_E_MALFORMED, SFDO_E_MALFORMED);
  expect_lazy_error (b, len);
  free (b);
}

static void
test_binary_index_offset_past_records_is_rejected (void **state)
{
  (void) state;
  size_t len;
  unsigned char *b = small_binary (&len);
  size_t idx = (size_t) get_u64 (b, H_INDEX_OFF);
  put_u64 (b, idx + 8, get_u64 (b, H_REC_SIZE) + 100);
  char *path = temp_file (b, len);
  struct sfdo_profile *p = NULL;
  struct sfdo_error err = no_error ();
  if (sfdo_profile_open (path, &p, &err) == SFDO_OK)
    {
      assert_null (sfdo_profile_find (p, "f", NULL, &err));
      assert_int_equal (err.code, SFDO_E_MALFORMED);
      assert_int_not_equal (err.offset, SFDO_NO_OFFSET);
      sfdo_profile_free (p);
    }
  unlink (path);
  free (path);
  /* The index is a reference into the records: every reader checks it.  */
  expect_binary_error (b, len, SFDO_E_MALFORMED, SFDO_E_MALFORMED);
  free (b);
}

static struct sfdo_profile *
build_chain (unsigned depth)
{
  struct sfdo_profile *p = sfdo_profile_new ();
  struct sfdo_prof_func *f = sfdo_profile_add_func (p, S (p, "f"), 0);
  for (unsigned i = 0; i < depth; i++)
    {
      f->total = 1;
      f = sfdo_prof_func_add_callsite (f, 0, 0, S (p, "g"), 0);
    }
  f->total = 1;
  sfdo_prof_func_add_line (f, 0, 0, 1);
  return p;
}

/* A binary profile nested too deep is rejected (if the writer writes it).  */
static void
test_binary_nesting_deeper_than_max_is_rejected (void **state)
{
  (void) state;
  struct sfdo_profile *p = build_chain (SFDO_PROFILE_MAX_DEPTH + 50);
  char *buf = NULL;
  size_t len;
  FILE *f = open_memstream (&buf, &len);
  enum sfdo_errc rc = sfdo_profile_write (p, f, SFDO_PROF_BINARY, "m", NULL);
  fclose (f);
  if (rc == SFDO_OK)
    assert_int_equal (binary_error (buf, len), SFDO_E_TOO_DEEP);
  free (buf);
  sfdo_profile_free (p);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_built_model_is_canonical_after_finalize),
    cmocka_unit_test (test_model_text_model_round_trip),
    cmocka_unit_test (test_model_binary_model_round_trip),
    cmocka_unit_test (test_text_binary_text_is_byte_identical),
    cmocka_unit_test (test_text_output_is_a_fixed_point),
    cmocka_unit_test (test_binary_output_is_deterministic),
    cmocka_unit_test (test_lazily_opened_binary_loads_everything),
    cmocka_unit_test (test_read_and_save_use_files),
    cmocka_unit_test (test_names_with_colons_round_trip),
    cmocka_unit_test (test_text_writer_never_writes_what_it_cannot_read),
    cmocka_unit_test (test_strings_are_interned),
    cmocka_unit_test (test_func_add_moves_an_inline_instance),
    cmocka_unit_test (test_format_example_fields_land_in_place),
    cmocka_unit_test (test_format_example_survives_binary),
    cmocka_unit_test (test_comments_blank_lines_and_cr_are_ignored),
    cmocka_unit_test (test_empty_input_is_an_empty_profile),
    cmocka_unit_test (test_divmod_accepts_int64_min),
    cmocka_unit_test (test_merge_with_empty_is_identity),
    cmocka_unit_test (test_merge_is_commutative),
    cmocka_unit_test (test_merge_is_associative),
    cmocka_unit_test (test_merge_unites_header_sets),
    cmocka_unit_test (test_producers_give_gcc_majors),
    cmocka_unit_test (test_binary_producers_are_an_optional_tail),
    cmocka_unit_test (test_statics_found_by_path_tail),
    cmocka_unit_test (test_entries_head_else_busiest_line),
    cmocka_unit_test (test_merge_weight_multiplies_every_count),
    cmocka_unit_test (test_merge_saturates_instead_of_wrapping),
    cmocka_unit_test (test_saturated_counts_round_trip),
    cmocka_unit_test (test_finalize_coalesces_duplicates),
    cmocka_unit_test (test_copy_moved_moves_own_records_only),
    cmocka_unit_test (test_reader_coalesces_duplicates),
    cmocka_unit_test (test_profile_total_saturates),
    cmocka_unit_test (test_overlap_of_a_profile_with_itself_is_one),
    cmocka_unit_test (test_overlap_of_disjoint_profiles_is_zero),
    cmocka_unit_test (test_overlap_partial_matches_hand_computation),
    cmocka_unit_test (test_overlap_keys_lines_by_inline_path),
    cmocka_unit_test (test_find_in_lazy_binary_keeps_statics_apart),
    cmocka_unit_test (test_find_in_lazy_binary_finds_each_of_many),
    cmocka_unit_test (test_find_in_text_profile),
    cmocka_unit_test (test_text_bad_number_is_malformed),
    cmocka_unit_test (test_text_missing_colon_is_malformed),
    cmocka_unit_test (test_text_bad_indentation_is_malformed),
    cmocka_unit_test (test_text_nesting_deeper_than_max_is_rejected),
    cmocka_unit_test (test_max_depth_is_accepted_in_both_encodings),
    cmocka_unit_test (test_text_unknown_value_kind_is_malformed),
    cmocka_unit_test (test_text_newer_version_is_rejected),
    cmocka_unit_test (test_text_number_overflow_is_range),
    cmocka_unit_test (test_text_negative_memsize_is_rejected),
    cmocka_unit_test (test_binary_bad_magic_is_not_binary),
    cmocka_unit_test (test_binary_newer_version_is_rejected),
    cmocka_unit_test (test_binary_every_truncation_is_an_error),
    cmocka_unit_test (test_binary_section_past_end_is_rejected),
    cmocka_unit_test (test_binary_too_many_functions_is_rejected),
    cmocka_unit_test (test_binary_string_reference_out_of_range),
    cmocka_unit_test (test_binary_unknown_value_kind_is_rejected),
    cmocka_unit_test (test_binary_index_offset_past_records_is_rejected),
    cmocka_unit_test (test_binary_nesting_deeper_than_max_is_rejected),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
