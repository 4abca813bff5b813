/* emu_branches.S - a program with known control flow, for the emulated
   PMU's exactness tests (tests/e2e/9*-emulate-*.sh).  No libc: the whole
   process is this code.  Linked -nostdlib -static.

   Taken branches, by the label of the branch instruction:
     site_call_kloop   1     site_jz      500     site_jnz   999
     site_ret_kloop    1     site_jmp_ind   1     (to the next instruction)
     site_call_ind     1     site_ret1      1     site_loop   99
   1603 in all; the REP MOVSB iterations and the not-taken jz/jnz are
   not branches.  Instructions: 5722 (REP MOVSB of 5 bytes counts 6, one
   per iteration and one for the final check, as callgrind counts it).  */
        .text
        .globl _start
_start:
        mov     $1000, %ecx
        xor     %eax, %eax
site_call_kloop:
        call    kloop
        lea     after_jmp(%rip), %rdx
site_jmp_ind:
        jmp     *%rdx
after_jmp:
        lea     src(%rip), %rsi
        lea     dst(%rip), %rdi
        mov     $5, %ecx
        rep movsb
        lea     ret1(%rip), %rbx
site_call_ind:
        call    *%rbx
        mov     $100, %ecx
loop2:
        dec     %ecx
site_loop:
        jnz     loop2
        mov     $60, %eax               /* exit (0) */
        xor     %edi, %edi
        syscall

kloop:
        dec     %rcx
        test    $1, %rcx
site_jz:
        jz      1f
        add     $1, %rax
1:      test    %rcx, %rcx
site_jnz:
        jnz     kloop
site_ret_kloop:
        ret

ret1:
site_ret1:
        ret

        .data
src:    .ascii  "hello"
dst:    .space  8
        .section .note.GNU-stack,"",@progbits
