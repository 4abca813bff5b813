/* thin_profile.c - code that ran, yet a thin profile (a short run under
   a timer) holds no sample of it (tests/e2e/112-decide-thin-profile.sh):
   the prologue of a hot interpreter, which calls a function too short to
   be sampled, and a function reached through a pointer that spends its
   time in its callee.  */
#include <stdio.h>
#include <stdlib.h>

struct vm
{
  int locked;
  long acc;
  const unsigned char *code;
  int n;
};

__attribute__ ((noinline)) static void
enter (struct vm *vm)
{
  if (vm->locked)
    abort ();
}

__attribute__ ((noinline)) static long
run (struct vm *vm)
{
  long acc;
  enter (vm);
  acc = vm->acc;
  for (int pc = 0; pc < vm->n; pc++)
    switch (vm->code[pc])
      {
      case 0: acc += 1; break;
      case 1: acc ^= pc; break;
      case 2: acc -= 3; break;
      case 3: acc *= 3; break;
      case 4: acc += pc; break;
      case 5: acc >>= 1; break;
      case 6: acc |= 4; break;
      case 7: acc &= 0xffffff; break;
      case 8: acc += acc >> 3; break;
      case 9: acc -= pc >> 1; break;
      case 10: acc ^= acc << 2; break;
      case 11: acc += 7; break;
      case 12: acc = ~acc; break;
      case 13: acc += pc * 5; break;
      case 14: acc -= acc >> 5; break;
      default: acc ^= 0x55; break;
      }
  vm->acc = acc;
  return acc;
}

__attribute__ ((noinline)) static long
checksum (const unsigned char *p, int n)
{
  long sum = 0;
  for (int i = 0; i < n; i++)
    sum = sum * 31 + p[i];
  return sum;
}

__attribute__ ((noinline)) static long
digest (const unsigned char *p, int n)
{
  return checksum (p, n) ^ n;
}

static long (*volatile hash_fn) (const unsigned char *, int) = digest;

int
main (int argc, char **argv)
{
  static unsigned char code[4096];
  struct vm vm = { 0, 1, code, (int) sizeof code };
  long rounds = argc > 1 ? atol (argv[1]) : 3000, total = 0;

  for (int i = 0; i < vm.n; i++)
    code[i] = (unsigned char) ((i * 7 + i / 3) % 16);
  for (long r = 0; r < rounds; r++)
    {
      total += run (&vm);
      total += hash_fn (code, 64);
      total += checksum (code + 64, 16);
    }
  printf ("%ld\n", total);
  return 0;
}
