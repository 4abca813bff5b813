/* plugin/position.h - where a GIMPLE statement sits in an sfdo profile.

   A statement's position is its inline stack: the chain of inlined
   function scopes (BLOCKs) from the statement up to the function, each
   giving the line of the call it was inlined at.  The profile nests
   inlined callees at (line offset, discriminator) callsites the same way,
   so the walk goes from the function's profile down through the
   callsites to the innermost callee and reads the count at the
   statement's line offset there.  Line offsets are relative to the
   line of the function's declaration, as the converter computes them
   from DW_AT_decl_line.  */

#ifndef SFDO_PLUGIN_POSITION_H
#define SFDO_PLUGIN_POSITION_H

/* The name the profile gives DECL where the profiled binary's DWARF gave
   it no linkage name (GCC leaves it out for some template instances):
   GCC's DWARF name for it without spaces, xmalloc'd; NULL for a function
   that has one (not a template instance).  */
char *sfdo_dwarf_profile_name (tree decl);

/* The line offset of LOCUS in function DECL, or -1 if it lies before the
   declaration (then the profile cannot hold it).  */
int64_t sfdo_line_offset (tree decl, location_t locus);

/* Where STMT sits in the current function's own lines: into *OFFSET its
   line offset, or for a statement of an inlined callee the offset of the
   call it was inlined by, and into *INLINED that callee (NULL_TREE for a
   statement of the function's own); false when STMT has no location.  */
bool sfdo_outer_position (gimple *stmt, int64_t *offset, tree *inlined);

/* Where STMT sits in the lines of DECL, a function the current one has
   inlined (the innermost frame of DECL in STMT's inline stack): into
   *OFFSET the line offset from DECL's declaration, into *INLINED the
   callee inlined there (NULL_TREE for a statement of DECL's own); false
   when STMT has no such frame.  */
bool sfdo_frame_position (gimple *stmt, tree decl, int64_t *offset,
			  tree *inlined);

/* The function of this unit whose assembler name is NAME (a profile's
   name for it), or NULL.  */
cgraph_node *sfdo_function_named (const char *name);

/* The function of assembler name NAME that the current function's body
   holds inlined (a frame of some statement's inline stack), or
   NULL_TREE.  */
tree sfdo_inlined_decl (const char *name);

/* The profile of STMT's innermost inline frame, following STMT's inline
   stack from F (the current function's profile), and STMT's line offset
   there in *OFFSET; NULL if the profile does not know the position.  */
const struct sfdo_prof_func *
sfdo_innermost_profile (const struct sfdo_prof_func *f, gimple *stmt,
			uint32_t *offset);

/* Start a unit: note whether the profile's code was built by a GCC that
   numbers the blocks of a line otherwise than this one (12, 13 to 15,
   16: gcc-compat.h).  A line the profile holds in one block matches this
   body's line in one block whatever their numbers (sfdo_stmt_count); the
   discriminators of a line of several blocks may name other blocks here.
   Returns that GCC's major, 0 if it numbers them as this one does (or
   the profile does not say).  */
unsigned sfdo_positions_begin_unit (void);

/* How many lines of several blocks this unit read by the numbers of
   another GCC's scheme.  */
unsigned sfdo_positions_renumbered_lines (void);

/* Note, for sfdo_stmt_count, which blocks of the current body hold each
   line of each profile its statements reach from F (the current
   function's profile), until sfdo_line_blocks_end.  */
void sfdo_line_blocks_begin (const struct sfdo_prof_func *f);
void sfdo_line_blocks_end (void);

/* The count of STMT, in a block of discriminator DISC, from F (the
   current function's profile); false if the profile does not know
   STMT's position.  *EXACT says whether the count is the one at
   (line, DISC) itself, or the line's only one where this body has the
   line in one block too (between sfdo_line_blocks_begin and _end); false
   where it is the line's, taken because the profile kept no
   discriminators for the function.  */
bool sfdo_stmt_count (const struct sfdo_prof_func *f, gimple *stmt,
		      unsigned disc, uint64_t *count, bool *exact);

/* Where F (the current function's profile) has STMT's line at
   discriminators none of this body's statements of the line has, with a
   count, and only zeros at those they have: the line's largest count,
   into *COUNT.  The profiled binary may have numbered the line's blocks
   otherwise (unrolled copies of an FDO build), or this body's blocks
   never ran and the count is another statement's: the caller decides.
   Needs sfdo_line_blocks_begin's table.  */
bool sfdo_stmt_renumbered_count (const struct sfdo_prof_func *f,
				 gimple *stmt, uint64_t *count);

/* The largest count F (the current function's profile) holds for STMT's
   line at a discriminator other than DISC, 0 if none.  */
uint64_t sfdo_stmt_line_count_elsewhere (const struct sfdo_prof_func *f,
					 gimple *stmt, unsigned disc);

/* How often the profiled binary made the out-of-line call CALL (in a
   block of discriminator DISC) to CALLEE, as F (the current function's
   profile) records it at the call's line, into *COUNT; false if it does
   not.  Needs sfdo_line_blocks_begin's table as sfdo_stmt_count does.  */
bool sfdo_call_count (const struct sfdo_prof_func *f, gimple *call,
		      unsigned disc, tree callee, uint64_t *count);

/* The profile the profiled binary recorded for CALLEE inlined at the call
   statement CALL (in a block of discriminator DISC) of the current
   function, whose profile is F; NULL if it has none.  */
const struct sfdo_prof_func *
sfdo_inlined_callee_profile (const struct sfdo_prof_func *f, gimple *call,
			     unsigned disc, tree callee);

/* The histogram of KIND at STMT's position (block discriminator DISC) in
   F, the current function's profile; NULL if there is none.  */
const struct sfdo_prof_values *
sfdo_histogram_at (const struct sfdo_prof_func *f, gimple *stmt,
		   unsigned disc, uint32_t kind);

#endif
