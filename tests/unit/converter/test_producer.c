/* tests/unit/converter/test_producer.c - converter/producer.h: which
 * compiler a DW_AT_producer names, and GCC 16's discriminators split into
 * base, multiplicity and copy id.  The symtab and the conversion of a
 * program whose line table says GCC 16 are in test_convert_core.c.  */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../../converter/producer.h"

static void
expect_producer (const char *s, const char *name, unsigned major,
                 int hierarchical)
{
  struct sfdo_producer p;
  assert_int_equal (sfdo_producer_parse (s, &p), 0);
  assert_string_equal (p.name, name);
  assert_int_equal (p.gcc_major, major);
  assert_int_equal (p.hierarchical, hierarchical);
}

static void
expect_none (const char *s)
{
  struct sfdo_producer p;
  assert_int_equal (sfdo_producer_parse (s, &p), -1);
  assert_false (p.hierarchical);
  assert_int_equal (p.gcc_major, 0);
}

static void
test_gcc_producers (void **state)
{
  (void) state;
  expect_producer ("GNU C17 16.2.0 -mtune=generic -O3 -g", "GCC 16.2.0", 16,
                   1);
  expect_producer ("GNU C23 16.2.0 -mtune=generic -march=x86-64 -g -O3",
                   "GCC 16.2.0", 16, 1);
  expect_producer ("GNU C++17 12.2.0 -mtune=generic -O2 -g", "GCC 12.2.0",
                   12, 0);
  expect_producer ("GNU C11 15.1.0", "GCC 15.1.0", 15, 0);
  /* Link-time optimisation's units, other languages, a snapshot.  */
  expect_producer ("GNU GIMPLE 16.2.0 -mtune=generic -O2 -flto", "GCC 16.2.0",
                   16, 1);
  expect_producer ("GNU Fortran2008 17.1.0 -O2", "GCC 17.1.0", 17, 1);
  expect_producer ("GNU Algol 68 16.1.0 -O2", "GCC 16.1.0", 16, 1);
  expect_producer ("GNU C17 16.0.1 20260110 (experimental) -O2",
                   "GCC 16.0.1", 16, 1);
  expect_producer ("GNU C89 4.8.5", "GCC 4.8.5", 4, 0);
}

static void
test_clang_and_others (void **state)
{
  (void) state;
  expect_producer ("Debian clang version 14.0.6", "clang 14.0.6", 0, 0);
  expect_producer ("clang version 17.0.0 (https://github.com/llvm/llvm-"
                   "project.git 1234)", "clang 17.0.0", 0, 0);
  expect_producer ("Ubuntu clang version 14.0.0-1ubuntu1.1", "clang 14.0.0",
                   0, 0);
  expect_none ("GNU AS 2.40");
  expect_none ("GNU C17 -O2");          /* no version */
  expect_none ("GNU C17 16. -O2");
  expect_none ("rustc version 1.70.0");
  expect_none ("");
  expect_none (NULL);
}

static void
test_gcc16_discriminator_parts (void **state)
{
  (void) state;
  static const struct {
    uint32_t d, base, multiplicity, copy_id;
  } cases[] = {
    { 0, 0, 1, 0 },
    { 2, 2, 1, 0 },
    { 255, 255, 1, 0 },
    { 32768, 0, 1, 1 },                 /* an unrolled copy */
    { 262144, 0, 1, 8 },
    { 33794, 2, 4, 1 },                 /* vectorized by 4, base 2 */
    { 66560, 0, 4, 2 },
    { 0x7f00, 0, 127, 0 },
    { 0x3ffffff, 255, 127, 2047 },
    { 0xfc000003, 3, 1, 0 },            /* bits 26-31 are unused */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      struct sfdo_gcc_disc p = sfdo_gcc_disc_split (cases[i].d);
      assert_int_equal (p.base, cases[i].base);
      assert_int_equal (p.multiplicity, cases[i].multiplicity);
      assert_int_equal (p.copy_id, cases[i].copy_id);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_gcc_producers),
    cmocka_unit_test (test_clang_and_others),
    cmocka_unit_test (test_gcc16_discriminator_parts),
  };
  return cmocka_run_group_tests_name ("producer", tests, NULL, NULL);
}
