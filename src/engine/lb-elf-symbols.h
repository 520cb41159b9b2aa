/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * lb-elf-symbols: function names for code addresses, read from an ELF file's symbol tables
 * (engine-internal, for the crash reports of lightbox-filter-host, lb-crash-report.c).
 *
 * dladdr() sees only the dynamic symbol table, where a plugin built as the guide says
 * (-fvisibility=hidden) has one name, lb_filter_plugin_query(); its own static functions
 * are named only in .symtab, which dladdr() never reads. The file is untrusted (it is a
 * plugin), so every offset and size is checked against the file before it is used.
 */

typedef struct _LbElfSymbols LbElfSymbols;

/* Reads the function symbols of the ELF file open on @fd (not taken; read with pread(), so
 * the offset is left alone). %NULL with an error if it is not an ELF file of this machine's
 * class and byte order or is malformed; a file without symbols gives an empty table. */
LbElfSymbols *_lb_elf_symbols_new_from_fd  (int                 fd,
                                            GError            **error);
void          _lb_elf_symbols_free         (LbElfSymbols       *syms);

/* The link-time address (as in the file) of the first byte the loader maps: subtracting it
 * from the mapping's start (dladdr()'s dli_fbase) gives the load bias. */
guint64       _lb_elf_symbols_get_base     (const LbElfSymbols *syms);

/* The function containing the link-time address @vaddr (.symtab preferred, then .dynsym),
 * and @vaddr's offset into it; %NULL if none does. Owned by @syms. */
const char   *_lb_elf_symbols_lookup       (const LbElfSymbols *syms,
                                            guint64             vaddr,
                                            guint64            *offset);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbElfSymbols, _lb_elf_symbols_free)

G_END_DECLS
