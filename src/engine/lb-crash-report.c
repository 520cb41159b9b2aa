/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-crash-report"

/*
 * Crash reports of lightbox-filter-host (see lb-crash-report.h): the handler that writes
 * them in the helper, and the reader that turns them into words in Lightbox.
 *
 * The report is text, one record a line, fields separated by tabs:
 *
 *     signal  SIG  SI_CODE  ADDRESS(hex, or -)
 *     frame   ADDRESS  OBJECT_BASE  SYMBOL_ADDRESS  MAIN(0/1)  OBJECT  SYMBOL
 *     end
 *
 * innermost frame first, starting at the instruction that faulted. OBJECT and SYMBOL are
 * dladdr()'s (the plugin is /proc/self/fd/4 there: the helper loads it from that
 * descriptor); MAIN says the frame lies in the helper's executable, whose name dladdr()
 * does not reliably give.
 */

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include <glib.h>

#include "lb-crash-report.h"
#include "lb-elf-symbols.h"
#include "lb-filter-host-proto.h"

/* Frames the helper records, and the most a message shows. */
#define MAX_FRAMES 64
#define MAX_SHOWN 32
/* The most of a report Lightbox reads, bytes (64 frames with long paths fit easily). */
#define MAX_REPORT (64 * 1024)
/* Seconds the handler may take before SIGALRM ends the helper anyway (dladdr() takes the
 * dynamic loader's lock, which a crash inside dlopen() on another thread may hold). */
#define HANDLER_ALARM_S 5

/* ------------------------------------------------------------------------------------------ */
/* In the helper: the signal handler                                                           */
/* ------------------------------------------------------------------------------------------ */

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static int crash_fd = -1;
static gpointer main_base;
static gint crashing;

static void
put (const char *s,
     gsize       n)
{
  while (n > 0)
    {
      ssize_t w = write (crash_fd, s, n);

      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return;
      s += w;
      n -= (gsize) w;
    }
}

static void
put_str (const char *s)
{
  /* a tab or a newline in a path would break the record */
  for (const char *p = s; *p != '\0'; p++)
    put (*p == '\t' || *p == '\n' ? " " : p, 1);
}

static void
put_hex (guint64 v)
{
  char buf[2 + 16];
  int i = sizeof buf;

  do
    buf[--i] = "0123456789abcdef"[v & 15];
  while ((v >>= 4) != 0);
  buf[--i] = 'x';
  buf[--i] = '0';
  put (buf + i, sizeof buf - (gsize) i);
}

static void
put_int (gint64 v)
{
  char buf[24];
  int i = sizeof buf;
  guint64 u = v < 0 ? (guint64) -v : (guint64) v;

  do
    buf[--i] = (char) ('0' + u % 10);
  while ((u /= 10) != 0);
  if (v < 0)
    buf[--i] = '-';
  put (buf + i, sizeof buf - (gsize) i);
}

/* The interrupted instruction, where the architecture's context is known. */
static gpointer
context_pc (gpointer uctx)
{
  ucontext_t *uc = uctx;

  (void) uc;
#if defined(__x86_64__)
  return (gpointer) uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__i386__)
  return (gpointer) uc->uc_mcontext.gregs[REG_EIP];
#elif defined(__aarch64__)
  return (gpointer) uc->uc_mcontext.pc;
#else
  return NULL;
#endif
}

static void
crash_handler (int        sig,
               siginfo_t *info,
               void      *uctx)
{
  gpointer frames[MAX_FRAMES];
  gpointer pc = context_pc (uctx);
  int n, first = 0;

  /* One report. Every band thread of a pass may crash at about the same moment: the others
   * wait here (still handled, not killed by the default action before the report is out)
   * until the first one's raise() below ends the process, or the alarm does. */
  if (!g_atomic_int_compare_and_exchange (&crashing, 0, 1))
    for (;;)
      pause ();
  alarm (HANDLER_ALARM_S);
  put ("signal\t", 7);
  put_int (sig);
  put ("\t", 1);
  put_int (info->si_code);
  put ("\t", 1);
  /* si_addr is the faulting address only for a fault the kernel raised (si_code > 0), not
   * for raise() or kill() */
  if (info->si_code > 0 && sig != SIGABRT)
    put_hex ((guint64) (guintptr) info->si_addr);
  else
    put ("-", 1);
  put ("\n", 1);

  n = backtrace (frames, MAX_FRAMES);
  /* skip this handler and the kernel's signal trampoline: start at the interrupted frame */
  for (int i = 0; pc != NULL && i < n; i++)
    if (frames[i] == pc)
      {
        first = i;
        break;
      }
  for (int i = first; i < n; i++)
    {
      Dl_info dl = { 0 };
      gboolean found = dladdr (frames[i], &dl) != 0;

      put ("frame\t", 6);
      put_hex ((guint64) (guintptr) frames[i]);
      put ("\t", 1);
      put_hex ((guint64) (guintptr) (found ? dl.dli_fbase : NULL));
      put ("\t", 1);
      put_hex ((guint64) (guintptr) (found ? dl.dli_saddr : NULL));
      put (found && dl.dli_fbase == main_base ? "\t1\t" : "\t0\t", 3);
      put_str (found && dl.dli_fname != NULL ? dl.dli_fname : "");
      put ("\t", 1);
      put_str (found && dl.dli_sname != NULL ? dl.dli_sname : "");
      put ("\n", 1);
    }
  put ("end\n", 4);

  /* The default action back, and @sig blocked until we return: raise() makes it pending,
   * so it kills the process as we return (a fault would recur anyway; raise() covers
   * raise(), kill() and abort()). */
  {
    struct sigaction dfl = { 0 };

    dfl.sa_handler = SIG_DFL;
    sigemptyset (&dfl.sa_mask);
    sigaction (sig, &dfl, NULL);
  }
  raise (sig);
}

/* The alternate stack's size: SIGSTKSZ is no longer a constant in newer glibc; 64 KiB hold
 * backtrace() and dladdr() with room to spare. */
#define ALTSTACK_SIZE (64 * 1024)
/* What the altstack key holds for a thread that had an alternate stack already (ASan gives
 * every thread its own and unmaps it itself when the thread ends) or could not get ours. */
#define ALTSTACK_KEPT GINT_TO_POINTER (1)

static void
altstack_free (gpointer stack)
{
  stack_t ss = { 0 };

  if (stack == ALTSTACK_KEPT)
    return;
  ss.ss_flags = SS_DISABLE;
  sigaltstack (&ss, NULL);
  g_free (stack);
}

/* This thread's alternate stack when we gave it one, freed when the thread ends. */
static GPrivate altstack = G_PRIVATE_INIT (altstack_free);

/* Gives this thread @stack (ALTSTACK_SIZE bytes) as its alternate signal stack, unless it
 * has one; FALSE if it kept its own or sigaltstack() failed. */
static gboolean
altstack_set (gpointer stack)
{
  stack_t old = { 0 }, ss = { 0 };

  if (sigaltstack (NULL, &old) == 0 && (old.ss_flags & SS_DISABLE) == 0)
    return FALSE;
  ss.ss_sp = stack;
  ss.ss_size = ALTSTACK_SIZE;
  return sigaltstack (&ss, NULL) == 0;
}

void
_lb_crash_report_thread_init (void)
{
  gpointer stack;

  if (g_private_get (&altstack) != NULL)
    return;
  stack = g_malloc (ALTSTACK_SIZE);
  if (altstack_set (stack))
    g_private_set (&altstack, stack);
  else
    {
      g_free (stack);
      g_private_set (&altstack, ALTSTACK_KEPT);
    }
}

void
_lb_crash_report_install (int fd)
{
  static guint8 main_altstack[ALTSTACK_SIZE];
  struct sigaction sa = { 0 };
  gpointer warm[1];
  Dl_info dl;

  crash_fd = fd;
  /* backtrace() loads libgcc_s on its first call (malloc, the loader's lock): never in
   * the handler */
  (void) backtrace (warm, 1);
  if (dladdr ((gpointer) _lb_crash_report_install, &dl) != 0)
    main_base = dl.dli_fbase;
  /* the main thread's stack lives as long as the process: static, so that no leak checker
   * at exit takes it for a leak */
  (void) altstack_set (main_altstack);
  g_private_set (&altstack, ALTSTACK_KEPT);
  sa.sa_sigaction = crash_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset (&sa.sa_mask);
  for (guint i = 0; i < G_N_ELEMENTS (crash_signals); i++)
    sigaction (crash_signals[i], &sa, NULL);
}

/* ------------------------------------------------------------------------------------------ */
/* In Lightbox: reading a report                                                               */
/* ------------------------------------------------------------------------------------------ */

static const char *
signal_name (int sig)
{
  switch (sig)
    {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGALRM: return "SIGALRM";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    case SIGPIPE: return "SIGPIPE";
    default: return NULL;
    }
}

/* What the address of a fault is, in words. */
static const char *
address_meaning (int sig,
                 int code)
{
  if (sig == SIGSEGV && code == SEGV_MAPERR)
    return "no memory mapped there";
  if (sig == SIGSEGV && code == SEGV_ACCERR)
    return "the memory there may not be accessed that way";
  if (sig == SIGBUS && code == BUS_ADRERR)
    return "beyond the end of a mapped file";
  if (sig == SIGBUS && code == BUS_ADRALN)
    return "misaligned";
  if (sig == SIGFPE && code == FPE_INTDIV)
    return "the instruction; an integer division by zero";
  if (sig == SIGFPE)
    return "the instruction; an arithmetic error";
  if (sig == SIGILL)
    return "the instruction; not a valid instruction for this processor";
  return NULL;
}

typedef struct {
  int plugin_fd;
  const char *plugin_origin;
  const char *helper_exe;
  LbElfSymbols *plugin_syms;
  LbElfSymbols *helper_syms;
  gboolean plugin_tried, helper_tried;
} Namer;

static LbElfSymbols *
namer_syms (Namer   *nm,
            gboolean plugin)
{
  g_autoptr(GError) error = NULL;

  if (plugin && !nm->plugin_tried)
    {
      nm->plugin_tried = TRUE;
      if (nm->plugin_fd >= 0)
        nm->plugin_syms = _lb_elf_symbols_new_from_fd (nm->plugin_fd, &error);
    }
  else if (!plugin && !nm->helper_tried)
    {
      int fd = open (nm->helper_exe, O_RDONLY | O_CLOEXEC);

      nm->helper_tried = TRUE;
      if (fd >= 0)
        {
          nm->helper_syms = _lb_elf_symbols_new_from_fd (fd, &error);
          close (fd);
        }
    }
  if (error != NULL)
    g_debug ("no symbols: %s", error->message);
  return plugin ? nm->plugin_syms : nm->helper_syms;
}

/* One frame of the report as "function+0xOFF (file)". @index 0 is the faulting
 * instruction itself; the others are return addresses, whose call lies one byte before. */
static void
append_frame (GString  *out,
              Namer    *nm,
              guint     index,
              char    **fields)
{
  guint64 addr = g_ascii_strtoull (fields[1], NULL, 16);
  guint64 base = g_ascii_strtoull (fields[2], NULL, 16);
  guint64 saddr = g_ascii_strtoull (fields[3], NULL, 16);
  gboolean main_exe = g_str_equal (fields[4], "1");
  const char *object = fields[5];
  const char *symbol = fields[6];
  g_autofree char *plugin_in_helper = g_strdup_printf ("/proc/self/fd/%d", LB_FH_PLUGIN_FD);
  gboolean is_plugin = g_str_equal (object, plugin_in_helper);
  g_autofree char *file = NULL;
  LbElfSymbols *syms = NULL;
  const char *name = NULL;
  guint64 offset = 0;

  if (is_plugin)
    file = g_path_get_basename (nm->plugin_origin);
  else if (main_exe)
    file = g_path_get_basename (nm->helper_exe);
  else
    file = g_path_get_basename (*object != '\0' ? object : "?");
  if (is_plugin || main_exe)
    syms = namer_syms (nm, is_plugin);
  if (syms != NULL && base != 0 && addr >= base)
    {
      guint64 vaddr = addr - base + _lb_elf_symbols_get_base (syms);

      name = _lb_elf_symbols_lookup (syms, index > 0 ? vaddr - 1 : vaddr, &offset);
      if (name != NULL && index > 0)
        offset++;
    }
  if (name == NULL && *symbol != '\0' && saddr != 0 && addr >= saddr)
    {
      name = symbol;
      offset = addr - saddr;
    }
  if (name != NULL)
    g_string_append_printf (out, "  #%-2u %s+0x%" G_GINT64_MODIFIER "x (%s)\n", index, name,
                            offset, file);
  else
    g_string_append_printf (out, "  #%-2u 0x%" G_GINT64_MODIFIER "x (%s+0x%" G_GINT64_MODIFIER
                            "x)\n", index, addr, file, base != 0 ? addr - base : addr);
}

char *
_lb_crash_report_explain (int          report_fd,
                          int          term_sig,
                          int          plugin_fd,
                          const char  *plugin_origin,
                          const char  *helper_exe,
                          char       **backtrace)
{
  g_autofree char *text = g_malloc (MAX_REPORT + 1);
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) frames = g_string_new (NULL);
  GString *what = g_string_new (NULL);
  Namer nm = { plugin_fd, plugin_origin, helper_exe };
  int sig = term_sig, code = 0;
  gboolean has_address = FALSE;
  guint64 address = 0;
  gssize n = report_fd >= 0 ? pread (report_fd, text, MAX_REPORT, 0) : -1;
  guint n_frames = 0;
  gboolean complete = FALSE;

  text[MAX (n, 0)] = '\0';
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], "\t", 8);
      guint nf = g_strv_length (f);

      if (nf == 4 && g_str_equal (f[0], "signal"))
        {
          /* the report's signal, not the exit status's: a handler that was stopped by its
           * alarm still knows what it was handling */
          sig = (int) g_ascii_strtoll (f[1], NULL, 10);
          code = (int) g_ascii_strtoll (f[2], NULL, 10);
          has_address = g_str_has_prefix (f[3], "0x");
          address = has_address ? g_ascii_strtoull (f[3] + 2, NULL, 16) : 0;
        }
      else if (nf == 7 && g_str_equal (f[0], "frame"))
        {
          if (n_frames < MAX_SHOWN)
            append_frame (frames, &nm, n_frames, f);
          n_frames++;
        }
      else if (nf == 1 && g_str_equal (f[0], "end"))
        complete = TRUE;
    }
  _lb_elf_symbols_free (nm.plugin_syms);
  _lb_elf_symbols_free (nm.helper_syms);

  if (signal_name (sig) != NULL)
    g_string_append_printf (what, "%s, %s", signal_name (sig), g_strsignal (sig));
  else
    g_string_append_printf (what, "signal %d, %s", sig, g_strsignal (sig));
  if (has_address)
    {
      const char *meaning = address_meaning (sig, code);

      g_string_append_printf (what, ", at address 0x%" G_GINT64_MODIFIER "x", address);
      if (meaning != NULL)
        g_string_append_printf (what, ": %s", meaning);
    }
  if (n_frames > MAX_SHOWN)
    g_string_append_printf (frames, "  … %u more\n", n_frames - MAX_SHOWN);
  else if (n_frames > 0 && !complete)
    g_string_append (frames, "  … (the report ends here)\n");
  if (frames->len > 0)
    g_string_truncate (frames, frames->len - 1);
  *backtrace = n_frames > 0 ? g_string_free (g_steal_pointer (&frames), FALSE) : NULL;
  return g_string_free (what, FALSE);
}
