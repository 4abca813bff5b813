/* With lto_fold_b.c: a public function that link-time optimisation
   inlines into another file's loop, its out-of-line copy kept for a
   pointer.  Compiled without -flto, that file calls it out of line.  */
unsigned
fold (unsigned x)
{
  return (x * 2654435761u) >> 7 ^ x;
}
