/* plugin/loader.c - samplefdo.so as GCC loads it: picks the build of the
   plugin made for the GCC that is running (samplefdo-gccN.so, in the same
   directory) and hands it GCC's call.

   Why a loader: GCC opens a plugin with dlopen (RTLD_NOW), so a plugin
   built against another GCC's headers fails there, on the first of GCC's
   internal symbols that moved ("undefined symbol: _ZN..."), before its
   plugin_init could say which GCC it was built for.  This file uses none
   of GCC's symbols: it reads the running GCC's version from plugin_init's
   arguments, so a missing build is refused with a message that names both
   versions, and one path (and one spec file) serves every GCC the plugin
   was built for.  GCC names a plugin's arguments (-fplugin-arg-NAME-...)
   after the base name of the file it loaded, so the loader keeps the
   name samplefdo.so and the builds differ by suffix.

   GCC's plugin interface passes two structures whose layout has not
   changed since GCC 4.5 (gcc-plugin.h, plugin-version.h); the loader
   reads only the fields named below, declared here to stay free of any
   one GCC's headers.  */

#include <dirent.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* GCC loads only plugins that declare this symbol.  */
int plugin_is_GPL_compatible;

struct plugin_argument
{
  char *key;
  char *value;
};

struct plugin_name_args
{
  char *base_name;
  const char *full_name;
  int argc;
  struct plugin_argument *argv;
  const char *version;
  const char *help;
};

struct plugin_gcc_version
{
  const char *basever;
  const char *datestamp;
  const char *devphase;
  const char *revision;
  const char *configuration_arguments;
};

typedef int (*plugin_init_fn) (struct plugin_name_args *,
                               struct plugin_gcc_version *);

int plugin_init (struct plugin_name_args *info,
                 struct plugin_gcc_version *version);

/* Write into BUF the directory of PATH ("." for a bare name).  */
static void
directory_of (const char *path, char *buf, size_t size)
{
  const char *slash = strrchr (path, '/');
  if (!slash)
    snprintf (buf, size, ".");
  else if (slash == path)
    snprintf (buf, size, "/");
  else
    snprintf (buf, size, "%.*s", (int) (slash - path), path);
}

/* Write into BUF the GCC majors DIR has builds for ("12, 16"), or
   "none".  */
static void
builds_in (const char *dir, char *buf, size_t size)
{
  DIR *d = opendir (dir);
  struct dirent *e;
  size_t used = 0;
  buf[0] = '\0';
  while (d && (e = readdir (d)))
    {
      int major, end = 0;
      if (sscanf (e->d_name, "samplefdo-gcc%d.so%n", &major, &end) == 1
          && end > 0 && e->d_name[end] == '\0' && used < size)
        used += (size_t) snprintf (buf + used, size - used, "%s%d",
                                   used ? ", " : "", major);
    }
  if (d)
    closedir (d);
  if (!buf[0])
    snprintf (buf, size, "none");
}

int
plugin_init (struct plugin_name_args *info,
             struct plugin_gcc_version *version)
{
  char dir[4096], path[4200], built[256];
  int major = atoi (version->basever);
  void *impl;
  plugin_init_fn init;

  directory_of (info->full_name, dir, sizeof dir);
  snprintf (path, sizeof path, "%s/samplefdo-gcc%d.so", dir, major);
  if (access (path, R_OK) != 0)
    {
      builds_in (dir, built, sizeof built);
      fprintf (stderr,
               "%s: error: this is GCC %s, and %s has no build of the "
               "plugin for GCC %d (it has builds for GCC: %s)\n"
               "%s: note: build and install one with: make plugin "
               "GCC=gcc-%d && make install GCC=gcc-%d\n",
               info->base_name, version->basever, dir, major, built,
               info->base_name, major, major);
      return 1;
    }
  /* A build for this major that still does not load was made against
     another release of it whose internals differ.  */
  impl = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  if (!impl)
    {
      fprintf (stderr,
               "%s: error: cannot load %s into GCC %s: %s\n"
               "%s: note: it was built against other GCC %d plugin headers; "
               "rebuild it: make plugin GCC=gcc-%d\n",
               info->base_name, path, version->basever, dlerror (),
               info->base_name, major, major);
      return 1;
    }
  init = (plugin_init_fn) (uintptr_t) dlsym (impl, "plugin_init");
  if (!init)
    {
      fprintf (stderr, "%s: error: %s has no plugin_init: %s\n",
               info->base_name, path, dlerror ());
      return 1;
    }
  return init (info, version);
}
