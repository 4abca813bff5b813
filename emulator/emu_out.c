/* emulator/emu_out.c - writing the raw stream of emu_format.h (emu.h).
 *
 * Records are gathered in a buffer and written when it fills, before a
 * fork or an exec, and at the end.  The file's descriptor is moved into
 * the range Valgrind keeps for itself, so the client can neither close it
 * nor have its number reused for one of its own files.  */
#include "pub_tool_basics.h"
#include "pub_tool_vki.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"

#include "emu.h"

/* From Valgrind's core (pub_core_libcfile.h; no tool header declares it):
   dup OLDFD above the client's descriptor limit, close-on-exec, and close
   OLDFD.  The Makefile checks that the core library is the version the
   tool is built for.  */
extern Int VG_(safe_fd) (Int oldfd);

#define BUF_SIZE (256 * 1024)

static UChar *buf;
static UInt used;
static Int fd = -1;
static Bool failed;
static HChar *path;

/* --- the file ---------------------------------------------------------- */

static void
write_failed (const HChar *what)
{
  if (!failed)
    VG_(umsg) ("sfdoemu: cannot %s %s; the recording will lack what"
               " follows\n", what, path ? path : emu_opt.out_dir);
  failed = True;
}

Bool
emu_out_open (Int pid)
{
  if (!buf)
    buf = VG_(malloc) ("sfdoemu.buf", BUF_SIZE);
  SizeT size = VG_(strlen) (emu_opt.out_dir) + 48;
  path = VG_(realloc) ("sfdoemu.path", path, size);
  used = 0;
  failed = False;
  SysRes sr;
  Int n = 0;
  do
    {
      VG_(snprintf) (path, (Int) size, "%s/%d.%d.raw", emu_opt.out_dir, pid,
                     n++);
      sr = VG_(open) (path, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_EXCL, 0600);
    }
  while (sr_isError (sr) && sr_Err (sr) == VKI_EEXIST && n < 10000);
  if (sr_isError (sr))
    {
      VG_(umsg) ("sfdoemu: cannot create %s: %s\n", path,
                 VG_(sr_as_string) (sr));
      fd = -1;
      failed = True;
      return False;
    }
  fd = VG_(safe_fd) ((Int) sr_Res (sr));
  struct sfdo_emu_header h;
  VG_(memset) (&h, 0, sizeof h);
  VG_(memcpy) (h.magic, SFDO_EMU_MAGIC, sizeof h.magic);
  h.version = SFDO_EMU_VERSION;
  h.flags = (emu_opt.lbr ? SFDO_EMU_F_LBR : 0)
            | (emu_opt.regs ? SFDO_EMU_F_REGS : 0)
            | (emu_opt.jitter ? SFDO_EMU_F_JITTER : 0);
  for (UInt ev = 0; ev < SFDO_EMU_NEVENTS; ev++)
    h.period[ev] = (ULong) emu_opt.period[ev];
  h.pid = (UInt) pid;
  h.lbr_entries = SFDO_EMU_LBR_ENTRIES;
  VG_(strncpy) (h.valgrind_version, SFDO_EMU_VALGRIND_VERSION, sizeof h.valgrind_version - 1);
  VG_(memcpy) (buf, &h, sizeof h);
  used = sizeof h;
  return True;
}

void
emu_out_flush (void)
{
  UInt done = 0;
  while (fd >= 0 && !failed && done < used)
    {
      Int n = VG_(write) (fd, buf + done, (Int) (used - done));
      if (n <= 0)
        write_failed ("write to");
      else
        done += (UInt) n;
    }
  used = 0;
}

void
emu_out_close (void)
{
  emu_out_flush ();
  if (fd >= 0)
    VG_(close) (fd);
  fd = -1;
}

/* Room for a record of SIZE bytes (a multiple of 8), zeroed, its header
   filled in.  */
static void *
reserve (UInt type, UInt size)
{
  if (used + size > BUF_SIZE)
    emu_out_flush ();
  struct sfdo_emu_rec *r = (struct sfdo_emu_rec *) (buf + used);
  VG_(memset) (r, 0, size);
  r->type = type;
  r->size = size;
  used += size;
  return r;
}

/* --- records ------------------------------------------------------------ */

void
emu_out_comm (Int pid, Int tid, const HChar *name)
{
  struct sfdo_emu_comm *c = reserve (SFDO_EMU_COMM, sizeof *c);
  c->pid = (UInt) pid;
  c->tid = (UInt) tid;
  c->time = emu_now ();
  VG_(strncpy) (c->comm, name, SFDO_EMU_COMM_LEN - 1);
}

void
emu_out_fork (Int pid, Int ppid, Int tid, Int ptid)
{
  struct sfdo_emu_fork *f = reserve (SFDO_EMU_FORK, sizeof *f);
  *f = (struct sfdo_emu_fork) { f->h, (UInt) pid, (UInt) ppid, (UInt) tid,
                                (UInt) ptid, emu_now () };
}

void
emu_out_exit (Int pid, Int ppid, Int tid, Int ptid, ULong instructions,
              ULong taken, UInt flags)
{
  struct sfdo_emu_exit *e = reserve (SFDO_EMU_EXIT, sizeof *e);
  *e = (struct sfdo_emu_exit) { e->h, (UInt) pid, (UInt) ppid, (UInt) tid,
                                (UInt) ptid, emu_now (), instructions,
                                taken, flags, 0 };
}

void
emu_out_sample (Int pid, Int tid, UInt ev, ULong time, Addr ip, ULong period,
                const ULong *branches, UInt nb, const ULong *regs, UInt nr)
{
  UInt size = sizeof (struct sfdo_emu_sample) + (2 * nb + nr) * 8;
  struct sfdo_emu_sample *s = reserve (SFDO_EMU_SAMPLE, size);
  s->pid = (UInt) pid;
  s->tid = (UInt) tid;
  s->time = time;
  s->ip = ip;
  s->period = period;
  s->event = ev;
  s->nr_branches = (UShort) nb;
  s->nr_regs = (UShort) nr;
  ULong *tail = (ULong *) (s + 1);
  VG_(memcpy) (tail, branches, 2 * nb * sizeof *tail);
  if (nr)
    VG_(memcpy) (tail + 2 * nb, regs, nr * sizeof *tail);
}

/* --- mappings ----------------------------------------------------------- */

/* The code mappings described so far in this process image.  */
struct described {
  Addr start, end;
  ULong ino;
  Off64T offset;
};
static struct described *maps;
static UInt nmaps, cap_maps, last_hit;

void
emu_out_forget_maps (void)
{
  nmaps = last_hit = 0;
}

static Bool
is_described (const NSegment *seg)
{
  for (UInt k = 0; k < nmaps; k++)
    {
      UInt i = (last_hit + k) % nmaps;
      const struct described *d = &maps[i];
      if (d->start == seg->start && d->end == seg->end && d->ino == seg->ino
          && d->offset == seg->offset)
        {
          last_hit = i;
          return True;
        }
    }
  return False;
}

static void
remember (const NSegment *seg)
{
  if (nmaps == cap_maps)
    {
      cap_maps = cap_maps ? 2 * cap_maps : 64;
      maps = VG_(realloc) ("sfdoemu.maps", maps, cap_maps * sizeof *maps);
    }
  maps[nmaps++] = (struct described) { seg->start, seg->end, seg->ino,
                                       seg->offset };
}

/* The major and minor numbers of a dev_t, as glibc splits them.  */
static UInt
dev_major (ULong dev)
{
  return (UInt) (((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfffull));
}

static UInt
dev_minor (ULong dev)
{
  return (UInt) ((dev & 0xff) | ((dev >> 12) & ~0xffull));
}

void
emu_out_code_at (Addr addr)
{
  const NSegment *seg = VG_(am_find_nsegment) (addr);
  if (!seg || !(seg->kind & (SkFileC | SkAnonC | SkShmC)) || is_described (seg))
    return;
  remember (seg);
  const HChar *name = seg->kind == SkFileC ? VG_(am_get_filename) (seg) : NULL;
  if (!name)
    name = "//anon";
  UInt namelen = (UInt) VG_(strlen) (name);
  if (namelen > VKI_PATH_MAX)
    namelen = VKI_PATH_MAX;
  UInt size = (UInt) sizeof (struct sfdo_emu_mmap) + ((namelen + 8) & ~7u);
  struct sfdo_emu_mmap *m = reserve (SFDO_EMU_MMAP, size);
  m->pid = (UInt) VG_(getpid) ();
  m->tid = (UInt) emu_current_lwp ();
  m->time = emu_now ();
  m->start = seg->start;
  m->len = seg->end - seg->start + 1;
  m->pgoff = seg->kind == SkFileC ? (ULong) seg->offset : 0;
  m->maj = dev_major (seg->dev);
  m->min = dev_minor (seg->dev);
  m->ino = seg->ino;
  m->prot = (seg->hasR ? VKI_PROT_READ : 0) | (seg->hasW ? VKI_PROT_WRITE : 0)
            | (seg->hasX ? VKI_PROT_EXEC : 0);
  m->flags = VKI_MAP_PRIVATE;
  VG_(memcpy) (m + 1, name, namelen);
}
