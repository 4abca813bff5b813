/* shapes.cc - the classes of virt_main.cc's virtual call, defined apart
   from the call.  */
#include "shapes.h"

struct Square : Shape
{
  unsigned side;
  explicit Square (unsigned s) : side (s) {}
  unsigned weigh (unsigned x) const override { return (x ^ side) * 2654435761u; }
};

struct Triangle : Shape
{
  unsigned base, height;
  Triangle (unsigned b, unsigned h) : base (b), height (h) {}
  unsigned weigh (unsigned x) const override { return (x + base * height) >> 1; }
};

Shape *
make_shape (unsigned i)
{
  if (i % 16 == 5)
    return new Triangle (3, i);
  return new Square (i + 1);
}
