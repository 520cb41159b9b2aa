/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The data dictionary's keywords and VRs (lb-dicom-dict) against pydicom's dictionary_keyword()
 * and dictionary_VR() for every public attribute, instances of the repeating groups (60xx
 * overlays, 50xx curves) and private tags, which have none; the delimiters, whose VR is
 * "NONE", are not in the table. Attributes a newer pydicom knows and the table does not (a
 * later edition of PS3.6) are counted, not compared. Skips without pydicom. */
#include <string.h>

#include "lb-dicom-dict.h"
#include "lb-test-process.h"

/* One line per tag: "GGGGEEEE KEYWORD VR" (keyword "-" when none). */
static const char script[] =
  "from pydicom._dicom_dict import DicomDictionary\n"
  "from pydicom.datadict import dictionary_keyword, dictionary_VR\n"
  "tags = sorted(DicomDictionary) + [0x60023000, 0x601E0010, 0x50020005]\n"
  "for t in tags:\n"
  "    vr = dictionary_VR(t)\n"
  "    if (len(vr) == 2 and vr.isupper()) or ' or ' in vr:\n"
  "        print('%08X %s %s' % (t, dictionary_keyword(t) or '-', vr))\n";

static void
test_against_pydicom (void)
{
  const char *argv[] = { "/usr/bin/python3", "-c", script, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;
  guint checked = 0, newer = 0;
  int status;

  out = lb_test_run_tool (argv, &err, &status);
  if (status != 0)
    {
      g_test_skip (err);
      return;
    }
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], " ", 3);
      guint32 tag = (guint32) g_ascii_strtoull (f[0], NULL, 16);
      const char *kw = lb_dicom_dict_get_keyword (tag);
      const char *vr = lb_dicom_dict_get_vr (tag);

      /* an attribute of a later edition of the standard than the table's (a newer pydicom,
       * as Debian 13 has): not in the table at all, neither keyword nor VR */
      if (kw == NULL && vr == NULL && strcmp (f[1], "-") != 0)
        {
          newer++;
          continue;
        }
      g_assert_cmpstr (kw != NULL ? kw : "-", ==, f[1]);
      /* pydicom spells the ambiguous VRs out ("US or SS"); the table has codes for them */
      if (strlen (f[2]) == 2)
        g_assert_cmpstr (vr, ==, f[2]);
      checked++;
    }
  g_test_message ("%u attributes, %u of a later edition than the table", checked, newer);
  g_assert_cmpuint (checked, >, 4000);
  /* private attributes have no keyword */
  g_assert_null (lb_dicom_dict_get_keyword (0x00091010));
  g_assert_null (lb_dicom_dict_get_keyword (0x00290010));
  g_assert_cmpstr (lb_dicom_dict_get_keyword (0x00080020), ==, "StudyDate");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/dicom/dict/pydicom", test_against_pydicom);
  return g_test_run ();
}
