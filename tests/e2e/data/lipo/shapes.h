/* shapes.h - see virt_main.cc.  */
struct Shape
{
  virtual ~Shape () {}
  virtual unsigned weigh (unsigned x) const = 0;
};
Shape *make_shape (unsigned i);
