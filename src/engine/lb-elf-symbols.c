/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-elf-symbols"

/* Function names from an ELF file's symbol tables (see lb-elf-symbols.h). Only the section
 * headers, the two symbol tables and their string tables are read, with pread() (never
 * mapped: a file that shrinks under a mapping would raise SIGBUS in Lightbox). */

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>

#include "lb-elf-symbols.h"

/* Larger symbol or string tables are ignored (a plugin with debug info has a few MB). */
#define MAX_TABLE_BYTES (64u << 20)

typedef struct {
  guint64 value;
  guint64 size;
  guint32 name;      /* offset into the table's strings */
} Func;

typedef struct {
  GArray *funcs;     /* Func */
  char *strings;
  gsize strings_size;
} Table;

struct _LbElfSymbols {
  guint64 base;
  Table tables[2];   /* .symtab, then .dynsym */
};

static gboolean
read_at (int      fd,
         gpointer buf,
         gsize    size,
         guint64  offset)
{
  guint8 *p = buf;

  while (size > 0)
    {
      gssize n = pread (fd, p, size, (off_t) offset);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      p += n;
      size -= (gsize) n;
      offset += (guint64) n;
    }
  return TRUE;
}

/* TRUE if [offset, offset + size) lies inside a file of @file_size bytes. */
static gboolean
in_file (guint64 offset,
         guint64 size,
         guint64 file_size)
{
  return offset <= file_size && size <= file_size - offset;
}

static void
table_clear (Table *t)
{
  g_clear_pointer (&t->funcs, g_array_unref);
  g_clear_pointer (&t->strings, g_free);
}

/* Reads the function symbols of section @sym (a SHT_SYMTAB or SHT_DYNSYM) with its string
 * table; a section that does not fit the file is skipped, not an error (the code still ran). */
static void
table_read (Table            *t,
            int               fd,
            guint64           file_size,
            const ElfW(Shdr) *shdrs,
            guint             n_shdrs,
            const ElfW(Shdr) *sym)
{
  const ElfW(Shdr) *str;
  g_autofree ElfW(Sym) *syms = NULL;
  gsize n_syms;

  if (sym->sh_entsize != sizeof (ElfW(Sym)) || sym->sh_link >= n_shdrs
      || sym->sh_size > MAX_TABLE_BYTES || !in_file (sym->sh_offset, sym->sh_size, file_size))
    return;
  str = &shdrs[sym->sh_link];
  if (str->sh_type != SHT_STRTAB || str->sh_size == 0 || str->sh_size > MAX_TABLE_BYTES
      || !in_file (str->sh_offset, str->sh_size, file_size))
    return;
  n_syms = sym->sh_size / sizeof (ElfW(Sym));
  syms = g_new (ElfW(Sym), MAX (n_syms, 1));
  t->strings = g_malloc (str->sh_size + 1);
  if (!read_at (fd, syms, n_syms * sizeof (ElfW(Sym)), sym->sh_offset)
      || !read_at (fd, t->strings, str->sh_size, str->sh_offset))
    {
      g_clear_pointer (&t->strings, g_free);
      return;
    }
  /* a table whose last string is not terminated still cannot make us read past it */
  t->strings[str->sh_size] = '\0';
  t->strings_size = str->sh_size;
  t->funcs = g_array_new (FALSE, FALSE, sizeof (Func));
  for (gsize i = 0; i < n_syms; i++)
    {
      /* ELF32_ST_TYPE and ELF64_ST_TYPE are the same (the low four bits) */
      int type = ELF64_ST_TYPE (syms[i].st_info);
      Func f = { syms[i].st_value, syms[i].st_size, syms[i].st_name };

      if ((type == STT_FUNC || type == STT_GNU_IFUNC) && syms[i].st_shndx != SHN_UNDEF
          && f.name != 0 && f.name < t->strings_size)
        g_array_append_val (t->funcs, f);
    }
}

LbElfSymbols *
_lb_elf_symbols_new_from_fd (int      fd,
                             GError **error)
{
  ElfW(Ehdr) eh;
  g_autofree ElfW(Shdr) *shdrs = NULL;
  g_autofree ElfW(Phdr) *phdrs = NULL;
  LbElfSymbols *syms;
  struct stat st;
  guint64 file_size;
  gboolean have_base = FALSE;

  if (fstat (fd, &st) != 0 || st.st_size < (off_t) sizeof eh || !read_at (fd, &eh, sizeof eh, 0)
      || memcmp (eh.e_ident, ELFMAG, SELFMAG) != 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "not an ELF file");
      return NULL;
    }
  file_size = (guint64) st.st_size;
  if (eh.e_ident[EI_CLASS] != (sizeof (gpointer) == 8 ? ELFCLASS64 : ELFCLASS32)
      || eh.e_ident[EI_DATA] != (G_BYTE_ORDER == G_LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB)
      || eh.e_shentsize != sizeof (ElfW(Shdr)) || eh.e_phentsize != sizeof (ElfW(Phdr))
      || !in_file (eh.e_shoff, (guint64) eh.e_shnum * sizeof (ElfW(Shdr)), file_size)
      || !in_file (eh.e_phoff, (guint64) eh.e_phnum * sizeof (ElfW(Phdr)), file_size))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "not an ELF file of this machine, or its headers are malformed");
      return NULL;
    }

  syms = g_new0 (LbElfSymbols, 1);
  phdrs = g_new (ElfW(Phdr), MAX (eh.e_phnum, 1));
  if (read_at (fd, phdrs, eh.e_phnum * sizeof (ElfW(Phdr)), eh.e_phoff))
    for (guint i = 0; i < eh.e_phnum; i++)
      if (phdrs[i].p_type == PT_LOAD && (!have_base || phdrs[i].p_vaddr < syms->base))
        {
          /* the loader maps whole pages: the mapping starts at the page of the lowest
           * segment (glibc's l_map_start, which dladdr() reports as dli_fbase) */
          guint64 align = phdrs[i].p_align > 1 ? phdrs[i].p_align : 1;

          syms->base = phdrs[i].p_vaddr - phdrs[i].p_vaddr % MIN (align, 4096);
          have_base = TRUE;
        }
  shdrs = g_new (ElfW(Shdr), MAX (eh.e_shnum, 1));
  if (read_at (fd, shdrs, eh.e_shnum * sizeof (ElfW(Shdr)), eh.e_shoff))
    for (guint i = 0; i < eh.e_shnum; i++)
      {
        if (shdrs[i].sh_type == SHT_SYMTAB && syms->tables[0].funcs == NULL)
          table_read (&syms->tables[0], fd, file_size, shdrs, eh.e_shnum, &shdrs[i]);
        else if (shdrs[i].sh_type == SHT_DYNSYM && syms->tables[1].funcs == NULL)
          table_read (&syms->tables[1], fd, file_size, shdrs, eh.e_shnum, &shdrs[i]);
      }
  return syms;
}

void
_lb_elf_symbols_free (LbElfSymbols *syms)
{
  if (syms == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (syms->tables); i++)
    table_clear (&syms->tables[i]);
  g_free (syms);
}

guint64
_lb_elf_symbols_get_base (const LbElfSymbols *syms)
{
  return syms->base;
}

const char *
_lb_elf_symbols_lookup (const LbElfSymbols *syms,
                        guint64             vaddr,
                        guint64            *offset)
{
  for (guint i = 0; i < G_N_ELEMENTS (syms->tables); i++)
    {
      const Table *t = &syms->tables[i];

      for (guint k = 0; t->funcs != NULL && k < t->funcs->len; k++)
        {
          const Func *f = &g_array_index (t->funcs, Func, k);

          /* a symbol without a size (hand-written assembly) matches its first byte only */
          if (vaddr >= f->value && (vaddr - f->value < f->size
                                    || (f->size == 0 && vaddr == f->value)))
            {
              *offset = vaddr - f->value;
              return t->strings + f->name;
            }
        }
    }
  return NULL;
}
