/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-dict"

#include "lb-dicom-dict.h"

#include <stdlib.h>

typedef struct {
  guint32     tag;
  char        vr[3];
  const char *keyword;  /* "" for a few retired attributes that have none */
} LbDictEntry;

typedef struct {
  guint32     mask;
  guint32     value;
  char        vr[3];
  const char *keyword;
} LbDictRepeater;

#include "lb-dicom-dict-table.h"

static int
compare_entry (const void *key, const void *member)
{
  guint32 tag = *(const guint32 *) key;
  const LbDictEntry *e = member;

  return tag < e->tag ? -1 : tag > e->tag;
}

/* The public attribute @tag's entry (VR and keyword), NULL when unknown */
static gboolean
lookup (guint32 tag, const char **vr, const char **keyword)
{
  const LbDictEntry *e = bsearch (&tag, dict_entries, G_N_ELEMENTS (dict_entries),
                                  sizeof dict_entries[0], compare_entry);

  if (e != NULL)
    {
      *vr = e->vr;
      *keyword = e->keyword;
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (dict_repeaters); i++)
    if ((tag & dict_repeaters[i].mask) == dict_repeaters[i].value)
      {
        *vr = dict_repeaters[i].vr;
        *keyword = dict_repeaters[i].keyword;
        return TRUE;
      }
  return FALSE;
}

const char *
lb_dicom_dict_get_vr (guint32 tag)
{
  guint16 group = tag >> 16, element = tag & 0xffff;
  const char *vr, *keyword;

  if (element == 0x0000)
    return "UL"; /* group length (PS3.5 §7.2) */
  if (group & 1)
    /* private: only the creator elements have a known VR (PS3.5 §7.8.1) */
    return element >= 0x0010 && element <= 0x00ff ? "LO" : NULL;
  return lookup (tag, &vr, &keyword) ? vr : NULL;
}

const char *
lb_dicom_dict_get_keyword (guint32 tag)
{
  const char *vr, *keyword;

  if ((tag >> 16) & 1)
    return NULL;
  if (!lookup (tag, &vr, &keyword) || *keyword == '\0')
    return NULL;
  return keyword;
}
