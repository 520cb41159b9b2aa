/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-window-private.h"

G_BEGIN_DECLS

/* What lb-window-measure.c (the tools, the panel, the JSON sidecars) and
 * lb-window-measure-sr.c (DICOM SR reports on a DICOMweb store) share. */

/* One image file whose sidecar holds some of the list: the image, or a slice of a series. */
typedef struct {
  char    *uri;
  guint    frame;   /* a slice of a series: its measurements are this frame's; 0: all */
  char    *etag;    /* the sidecar's, as read; NULL when there was none */
  gboolean failed;  /* unreadable: it is never written over */
} Doc;

/* A measurement of the study on a series that is not open here (from a report on DICOMweb):
 * listed in the panel, never edited or saved from here. */
typedef struct {
  LbMeasurement *measurement;
  char          *series_uri;  /* the series' URI in the store */
  char          *series_uid;
  char          *sop_uid;     /* the instance it was drawn on */
  char          *label;       /* the series as the study's listing names it; NULL until then */
  char          *value;       /* the first value as the report states it */
} LbWindowMeasureOther;

/* The measurements of one viewport's image or series: each canvas has its own (set on it as
 * STATE_KEY), the window points at the active viewport's. The bar, panel and popover are the
 * window's, shared. Counted: a load or save in flight holds it. */
struct _LbWindowMeasure {
  guint              refs;
  gboolean           dead;           /* its canvas went: callbacks do nothing */
  LbMeasurementList *list;
  LbMeasureLayer    *layer;
  GtkWidget         *bar;
  GtkWidget         *list_box;
  GtkWidget         *popover;
  GPtrArray         *docs;           /* Doc */
  LbStore           *store;          /* where the sidecars are read and written */
  GCancellable      *cancellable;    /* loads and saves of the image open */
  LbMeasurement     *pending_select; /* selected once its slice is shown */
  guint              saving;         /* documents still being saved */
  guint              generation;     /* a new image or series makes older callbacks no-ops */
  GString           *save_errors;
  GPtrArray         *conflicts;      /* Doc: saves refused because the sidecar changed */
  gboolean           dicomweb;       /* @store is a DICOMweb store: reports, no sidecars */
  char              *instance_uri;   /* the one instance open there; NULL for a series */
  LbDicomDataset    *instance_ds;    /* its metadata, once fetched for a report */
  GPtrArray         *others;         /* LbWindowMeasureOther: the study's other series' */
  /* a row of another series was clicked: selected once that series' reports are read */
  char              *pending_sop;
  LbMeasurement     *pending_other;
};

typedef struct {
  LbWindow        *self;
  LbWindowMeasure *m;           /* a reference: the viewport's state the document is of */
  Doc             *doc;         /* owned by m->docs while @generation is current */
  guint            generation;
  gboolean         replacing;   /* the user agreed to replace the sidecar as it is now */
} DocOp;

DocOp   *_lb_window_measure_op_new       (LbWindow *self, LbWindowMeasure *m, Doc *d);
void     _lb_window_measure_op_free      (DocOp *op);
gboolean _lb_window_measure_op_current   (DocOp *op);
void     _lb_window_measure_state_unref  (LbWindowMeasure *m);
void     _lb_window_measure_update_actions (LbWindow *self);
/* The frame shown, from 1. */
guint    _lb_window_measure_frame_shown  (LbWindow *self);

/* On each viewport's canvas: its LbWindowMeasure. */
#define LB_WINDOW_MEASURE_STATE_KEY "lb-window-measure"

/* lb-window-measure-panel.c */
/* The list or its other series changed: the panel follows. */
void     _lb_window_measure_rows_changed (LbWindow *self);
void     _lb_window_measure_row_activated (GtkListBox    *box,
                                           GtkListBoxRow *row,
                                           LbWindow      *self);
void     _lb_window_measure_export_activated (GSimpleAction *action,
                                              GVariant      *param,
                                              gpointer       user_data);

/* lb-window-measure-sr.c */
void     _lb_window_measure_other_free   (gpointer other);
/* Opens @other's series here (after the unsaved-results question) and selects it there. */
void     _lb_window_measure_open_other   (LbWindow *self, LbWindowMeasure *m,
                                          LbWindowMeasureOther *other);
/* Finds the study's reports that reference what m shows and adds their measurements. */
void     _lb_window_measure_sr_load      (LbWindow *self, LbWindowMeasure *m);
/* Saves m's measurements as a new report (a new series) of the study. */
void     _lb_window_measure_sr_save      (LbWindow *self, LbWindowMeasure *m);

G_END_DECLS
