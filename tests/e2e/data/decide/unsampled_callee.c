/* A loop that runs at least once per call, in a function too cheap to
   catch a sample, called from a loop GCC folds away (e2e 66).  */
int flags[8];

int
first_set (void)
{
  int i;
  for (i = 0; i < 3; i++)
    if (flags[i])
      break;
  return i;
}

int
main ()
{
  int n;
  for (n = 0; n < 1000000; n++)
    first_set ();
  return 0;
}
