/* plugin/discriminators.h - an sfdo build's own line table, for the next
   round's profile: GCC 12 keeps one discriminator per basic block, and a
   block that a later pass copies (bb-reorder's duplication of a small hot
   block, a loop's test copied for its first iteration) starts over at
   discriminator 0.  The profile of such a build then gives the copy's
   executions to the line's discriminator 0, and the next build reads the
   original block as rarely run: Lua's luaH_getshortstr, whose key test
   ran in the copy, came out laid for a miss.  Just before final writes
   the line table, a block at discriminator 0 all of whose instructions'
   positions (file, line, column) are, in the function, only in blocks of
   one discriminator gets that one.  A position also in blocks of other
   discriminators, or an instruction with none, leaves the block as it
   is.  From GCC 13 on the discriminator is in each statement's location
   and copies keep it: none of this is needed.  */

#ifndef SFDO_PLUGIN_DISCRIMINATORS_H
#define SFDO_PLUGIN_DISCRIMINATORS_H

/* The RTL pass, before final, that gives copied blocks their
   discriminator back.  */
opt_pass *sfdo_make_discriminators_pass (gcc::context *ctxt);

#endif
