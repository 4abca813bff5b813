/* tests/unit/tmpname.h - where the unit tests make temporary files and
 * directories: a mkstemp/mkdtemp template under $TMPDIR, else /tmp (CI
 * and sandboxes point TMPDIR elsewhere).  Static: include it once per
 * test file.  */
#ifndef SFDO_TESTS_TMPNAME_H
#define SFDO_TESTS_TMPNAME_H

#include <stdio.h>
#include <stdlib.h>

/* Into BUF (SIZE bytes) the template "$TMPDIR/sfdo-test-TAG.XXXXXX".  */
static void
sfdo_test_tmpname (char *buf, size_t size, const char *tag)
{
  const char *dir = getenv ("TMPDIR");
  snprintf (buf, size, "%s/sfdo-test-%s.XXXXXX", dir && *dir ? dir : "/tmp",
            tag);
}

#endif
