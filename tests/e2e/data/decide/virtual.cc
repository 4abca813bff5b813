// A virtual call whose receiver is almost always one class: PGO turns it
// into a speculative direct call of that class's method (speculative
// devirtualisation), which it can inline.
#include <cstdio>
#include <cstdlib>

struct Shape
{
  virtual ~Shape () {}
  virtual unsigned weigh (unsigned x) const = 0;
};

struct Square : Shape
{
  unsigned side;
  explicit Square (unsigned s) : side (s) {}
  unsigned weigh (unsigned x) const override { return x * side + (x >> 3); }
};

struct Triangle : Shape
{
  unsigned base, height;
  Triangle (unsigned b, unsigned h) : base (b), height (h) {}
  unsigned weigh (unsigned x) const override
  {
    return (x ^ base) * height / 2 + 1;
  }
};

Shape *shapes[16];

__attribute__ ((noinline)) unsigned
total (long n)
{
  unsigned h = 7;
  for (long i = 0; i < n; i++)
    h = shapes[i & 15]->weigh (h) + (unsigned) i;
  return h;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? std::atol (argv[1]) : 100000000;
  for (int i = 0; i < 16; i++)
    shapes[i] = i == 5 ? static_cast<Shape *> (new Triangle (3, 4))
                       : static_cast<Shape *> (new Square (unsigned (i) + 1));
  std::printf ("%u\n", total (n));
  return 0;
}
