/* tests/unit/common/test_outfile.c - atomic outputs and same-file checks
 * (common/outfile.h): nothing at the path until commit, the old file
 * intact after an abort, no temporary file left, the mode a new file gets
 * under the umask, an error naming a directory that does not exist, a
 * FIFO (as /dev/null or a pipe) written in place and never replaced by a
 * file, and links recognised as the same file.  */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../common/outfile.h"

static char dir[64];

static int
setup (void **state)
{
  (void) state;
  snprintf (dir, sizeof dir, "/tmp/sfdo-test-outfile.XXXXXX");
  return mkdtemp (dir) ? 0 : -1;
}

static int
teardown (void **state)
{
  (void) state;
  char cmd[128];
  snprintf (cmd, sizeof cmd, "rm -rf %s", dir);
  return system (cmd) == 0 ? 0 : -1;
}

static void
read_back (const char *path, char *buf, size_t size)
{
  FILE *f = fopen (path, "r");
  assert_non_null (f);
  size_t n = fread (buf, 1, size - 1, f);
  buf[n] = 0;
  fclose (f);
}

/* How many files DIR holds.  */
static int
files_in_dir (void)
{
  char cmd[128], out[32];
  snprintf (cmd, sizeof cmd, "ls -A %s | wc -l", dir);
  FILE *p = popen (cmd, "r");
  assert_non_null (p);
  assert_non_null (fgets (out, sizeof out, p));
  pclose (p);
  return atoi (out);
}

static void
test_commit_and_abort (void **state)
{
  (void) state;
  char path[128], buf[64];
  struct sfdo_outfile out;
  snprintf (path, sizeof path, "%s/out.txt", dir);
  FILE *f = fopen (path, "w");
  fputs ("old\n", f);
  fclose (f);
  assert_int_equal (sfdo_outfile_open (path, &out, NULL), SFDO_OK);
  fputs ("new, half", out.f);
  fflush (out.f);
  read_back (path, buf, sizeof buf);
  assert_string_equal (buf, "old\n");           /* untouched meanwhile */
  sfdo_outfile_abort (&out);
  read_back (path, buf, sizeof buf);
  assert_string_equal (buf, "old\n");
  assert_int_equal (files_in_dir (), 1);        /* no temporary left */
  assert_int_equal (sfdo_outfile_open (path, &out, NULL), SFDO_OK);
  fputs ("new\n", out.f);
  assert_int_equal (sfdo_outfile_commit (&out, NULL), SFDO_OK);
  read_back (path, buf, sizeof buf);
  assert_string_equal (buf, "new\n");
  assert_int_equal (files_in_dir (), 1);
}

static void
test_mode_follows_the_umask (void **state)
{
  (void) state;
  char path[128];
  struct sfdo_outfile out;
  struct stat st;
  snprintf (path, sizeof path, "%s/mode.txt", dir);
  mode_t old = umask (027);
  assert_int_equal (sfdo_outfile_open (path, &out, NULL), SFDO_OK);
  assert_int_equal (sfdo_outfile_commit (&out, NULL), SFDO_OK);
  umask (old);
  assert_int_equal (stat (path, &st), 0);
  assert_int_equal (st.st_mode & 0777, 0640);
}

static void
test_errors_name_the_file (void **state)
{
  (void) state;
  struct sfdo_outfile out;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_outfile_open ("/nonexistent-dir/x", &out, &err),
                    SFDO_E_IO);
  assert_string_equal (err.path, "/nonexistent-dir/x");
  assert_null (out.f);
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_outfile_open ("", &out, &err), SFDO_E_USAGE);
  assert_non_null (strstr (err.msg, "empty"));
}

static void
test_same_file_sees_links (void **state)
{
  (void) state;
  char a[128], hard[128], soft[128], other[128];
  snprintf (a, sizeof a, "%s/a", dir);
  snprintf (hard, sizeof hard, "%s/hard", dir);
  snprintf (soft, sizeof soft, "%s/soft", dir);
  snprintf (other, sizeof other, "%s/other", dir);
  fclose (fopen (a, "w"));
  fclose (fopen (other, "w"));
  assert_int_equal (link (a, hard), 0);
  assert_int_equal (symlink (a, soft), 0);
  assert_true (sfdo_same_file (a, a));
  assert_true (sfdo_same_file (a, hard));
  assert_true (sfdo_same_file (soft, a));
  assert_false (sfdo_same_file (a, other));
  assert_false (sfdo_same_file (a, "/nonexistent"));
}

/* A rename over /dev/null would replace it (the test uses a FIFO of its
   own, to harm nothing if it fails).  */
static void
test_special_files_are_written_in_place (void **state)
{
  (void) state;
  char fifo[128], buf[16] = { 0 };
  struct sfdo_outfile out;
  struct stat st;
  snprintf (fifo, sizeof fifo, "%s/fifo", dir);
  assert_int_equal (mkfifo (fifo, 0600), 0);
  int rd = open (fifo, O_RDWR | O_NONBLOCK);   /* a reader, not blocking */
  assert_true (rd >= 0);
  assert_int_equal (sfdo_outfile_open (fifo, &out, NULL), SFDO_OK);
  fputs ("through", out.f);
  assert_int_equal (sfdo_outfile_commit (&out, NULL), SFDO_OK);
  assert_int_equal (read (rd, buf, sizeof buf - 1), 7);
  assert_string_equal (buf, "through");
  close (rd);
  assert_int_equal (stat (fifo, &st), 0);
  assert_true (S_ISFIFO (st.st_mode));
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_outfile_open (dir, &out, &err), SFDO_E_USAGE);
  assert_non_null (strstr (err.msg, "directory"));
  unlink (fifo);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_commit_and_abort),
    cmocka_unit_test (test_mode_follows_the_umask),
    cmocka_unit_test (test_errors_name_the_file),
    cmocka_unit_test (test_special_files_are_written_in_place),
    cmocka_unit_test (test_same_file_sees_links),
  };
  return cmocka_run_group_tests_name ("outfile", tests, setup, teardown);
}
