/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-bench-panel.h"
#include "lb-canvas.h"
#include "lb-filter-registry.h"
#include "lb-filter-params.h"
#include "lb-frame-source.h"
#include "lb-series-loader.h"
#include "lb-history.h"
#include "lb-param-dialog.h"
#include "lb-store-browser.h"
#include "lb-viewport-grid.h"
#include "lb-window.h"

G_BEGIN_DECLS

typedef struct _LbWindowMeasure LbWindowMeasure;
typedef struct _LbMeasureLayer LbMeasureLayer;

/* Something to do once unsaved results are answered for (lb-window-unsaved.c). */
typedef void (*LbWindowThen) (LbWindow *self,
                              gpointer  data);

/* The window's state, shared with its sibling files (lb-window-*.c); tests and bench/ read
 * it through lb-window-test.h. */
struct _LbWindow {
  GtkApplicationWindow parent_instance;

  /* Template widgets */
  GtkWidget      *header_bar;
  GtkWidget      *open_store_button;
  GtkWidget      *filter_button;
  GtkWidget      *window_button;
  GtkWidget      *main_menu_button;
  GtkWidget      *benchmark_button;
  GtkWidget      *save_button;
  GtkWidget      *upload_button;
  GtkWidget      *undo_button;
  GtkWidget      *redo_button;
  GtkWidget      *paned;
  GtkWidget      *tree_search;
  GtkWidget      *tree_search_status; /* "nothing matches" under the search */
  GtkWidget      *tree_stack;
  GtkWidget      *tree_box;
  GtkWidget      *welcome_list;
  GtkWidget      *viewport_grid;      /* LbViewportGrid */
  /* The active viewport's widgets (lb-window-viewports.c points them at it) */
  LbCanvas       *canvas;
  GtkWidget      *empty_label;
  GtkWidget      *canvas_spinner;
  GtkWidget      *bench_revealer;
  GtkWidget      *probe_label;
  GtkWidget      *zoom_label;
  GtkWidget      *wl_label;
  GtkWidget      *size_label;
  GtkWidget      *frame_label;
  GtkWidget      *overlay_corner[4];  /* indexed by LbOverlayCorner */
  GtkWidget      *overlay_edge[4];    /* indexed by LbOverlayEdge */
  GtkWidget      *filter_time_label;
  GtkWidget      *progress_bar;
  GtkWidget      *cancel_button;
  GtkWidget      *url_entry;
  GtkWidget      *url_open_button;
  GtkWidget      *recent_list;
  GtkWidget      *store_popover;

  /* Owned */
  GSettings      *settings;
  LbStoreBrowser *browser;
  LbStore        *store;
  LbHistory      *history;
  GCancellable   *load_cancellable;   /* the image download */
  GCancellable   *op_cancellable;     /* filter, upload, export, benchmark */
  guint           load_serial;        /* a newer load makes older callbacks no-ops */
  gint64          load_started_us;
  gint64          first_pixels_us;    /* monotonic time of the first rows, 0 until then */
  gint64          load_done_us;
  guint           progressive_serial; /* the load whose decoder buffer the canvas shows, 0 = none */
  char           *image_name;         /* display name of the open image */
  GMenu          *filter_menu;
  GMenu          *wl_menu;
  GtkWidget      *upload_dialog;      /* non-NULL while the name prompt is open */
  GtkWidget      *upload_entry;
  GtkWidget      *param_dialog;       /* non-NULL while a filter dialog is open */
  GCancellable   *error_cancellable;  /* takes down the last error shown */
  char           *last_status;        /* the last result line (upload verification, errors) */
  char           *last_upload_uri;
  gboolean        busy;

  /* Filters (lb-window-filters.c) */
  LbFilterRegistry *registry;         /* the application's, opened after the first frame */
  guint           registry_source;
  GListStore     *store_filters;      /* LbFilter published by the current store */
  GCancellable   *store_filters_cancellable;
  GCancellable   *preview_cancellable;
  guint           preview_source;
  guint           preview_serial;
  guint           rebind_source;  /* idle: the open dialog's filter after a registry change */
  LbFilter       *last_filter;        /* for Run Benchmark */
  LbFilterParams *last_params;
  double          last_filter_ms;
  LbBenchPanel   *bench;

  /* The second image of the open dialog's filter (lb-window-aux.c) */
  GPtrArray      *aux_choices;        /* what the dialog lists, in its order */
  GCancellable   *aux_cancellable;    /* slices and files being read for it */

  /* Filters over a whole series (lb-window-series-filter.c) */
  GPtrArray      *series_steps;       /* the whole-series results of the stack shown */
  guint           series_pos;         /* how many of them are in effect (undo, redo) */

  /* Frames of a multi-frame image (lb-window-frames.c) */
  LbFrameSource  *frames;             /* NULL unless the image has several frames */
  guint           frame;              /* the frame shown, from 1 */
  guint           frame_serial;       /* a newer frame load makes older callbacks no-ops */
  GCancellable   *frame_cancellable;
  gboolean        frame_loading;
  guint           cine_source;        /* the cine timer, 0 when not playing */
  GCancellable   *series_cancellable; /* reading a series' headers */
  LbSeriesLoader *series_loader;      /* a series' slices in the background; NULL otherwise */
  gboolean        frame_first;        /* nothing of the stack shown yet: fit, file's window */

  /* Reading a stack (lb-window-nav.c) */
  GtkWidget      *nav_bar;            /* under the canvas: slice slider, cine controls */
  GtkWidget      *slice_scale;
  GtkWidget      *slice_scale_label;
  GtkWidget      *load_progress;      /* "124/300 loaded" while a series loads */
  gint64          load_progress_us;   /* when it last changed (monotonic) */
  GtkWidget      *cine_fps_spin;
  LbFrameSource  *nav_frames;         /* the stack the controls were last set up for */
  gboolean        nav_updating;       /* the code moves the controls: no stepping */
  int             cine_step;          /* +1 or −1: the direction of a bouncing cine */
  GtkWidget      *wl_edit_button;
  GtkWidget      *wl_center_spin;
  GtkWidget      *wl_width_spin;
  GtkWidget      *scale_bar;          /* the active viewport's (LbViewport draws it) */
  gboolean        was_fullscreen;
  GtkWidget      *tag_browser;        /* LbTagBrowser, made on first use */
  char           *tag_uri;            /* the file whose header it shows, NULL for a slice */
  GCancellable   *tag_cancellable;    /* reading a store image's data set for it */

  LbWindowMeasure *measure;           /* the measurement tools (lb-window-measure.c) */

  /* Unsaved results (lb-window-unsaved.c) */
  LbImage        *saved_image;        /* the history's image last uploaded or exported */
  LbWindowThen    pending_func;       /* waits for the answer to "save the changes?" */
  gpointer        pending_data;
  GDestroyNotify  pending_free;
  gboolean        asking_unsaved;
  gboolean        close_confirmed;    /* closing goes ahead without asking again */

  /* Focus (lb-window-focus.c) */
  guint           focus_source;       /* idle: the keys go back to the viewport */

  /* Studies (lb-window-study.c) */
  GtkWidget      *study_panel;        /* LbStudyPanel, template child under the tree */
  GtkWidget      *study_search;       /* LbStudySearch, made on first use */
  /* Viewports (lb-window-viewports.c) */
  LbFrameSource  *follow_frames;      /* the active stack and slice the others last followed */
  guint           follow_frame;
  gboolean        linking;            /* linked W/L is setting the other viewports' windows */
};

/* lb-window.c */
void _lb_window_show_error     (LbWindow     *self,
                                const char   *title,
                                const GError *error);
void _lb_window_set_status     (LbWindow     *self,
                                const char   *text);
void _lb_window_begin_op       (LbWindow     *self,
                                const char   *what);
void _lb_window_end_op         (LbWindow     *self);
void _lb_window_set_progress   (LbWindow     *self,
                                double        fraction);
/* Shows @image as the new current state (a filter result or an undo step). */
void _lb_window_show_current   (LbWindow     *self);
/* Enables the actions that the current image, store and operation allow. */
void _lb_window_update_actions (LbWindow     *self);

/* The active canvas changed: the status bar's labels, the toggles and the W/L menu follow. */
void _lb_window_canvas_changed (LbWindow     *self);

/* The image's history (NULL: none); the actions follow it. */
void _lb_window_set_history    (LbWindow     *self,
                                LbHistory    *history);

/* lb-window-frames.c */
/* Adds the frame actions (next-frame, previous-frame, first-frame, last-frame, cine). */
void _lb_window_frames_init    (LbWindow     *self);
/* A new image was opened from @uri: its frames, if it has several, become steppable. */
void _lb_window_frames_open    (LbWindow     *self,
                                LbImage      *image,
                                const char   *uri);
/* Stops cine and any frame load, forgets the frames. */
void _lb_window_frames_close   (LbWindow     *self);
void _lb_window_frames_update_actions (LbWindow *self);
/* Whether a series is loading in the background, and stopping it (Escape). */
gboolean _lb_window_frames_is_loading  (LbWindow *self);
void     _lb_window_frames_stop_loading (LbWindow *self);
/* Shows @series (a series source) as one stack, from its first slice; @name for the title. */
void _lb_window_frames_open_series (LbWindow      *self,
                                    LbFrameSource *series,
                                    const char    *name);
/* Reads the headers of @folder's files in the background and, when they are one DICOM series,
 * shows it as a stack. */
void _lb_window_frames_open_folder (LbWindow *self,
                                    GFile    *folder);
/* The images of a folder of the store (not DICOMweb) as one stack, when they are alike;
 * else the error says which two differ. */
void _lb_window_frames_open_store_folder (LbWindow     *self,
                                          LbStoreEntry *folder);
/* The same for a series of a local folder's store (its instances are local files) or of a
 * DICOMweb store (from the series' metadata); errors are shown. */
void _lb_window_frames_open_store_series (LbWindow     *self,
                                          LbStoreEntry *series);

/* The frame label, the reading controls and the frame actions follow self->frames. */
void _lb_window_frames_refresh (LbWindow *self);

/* lb-window-overlay.c */
/* Adds win.overlay (the corner texts and orientation markers over the canvas). */
void _lb_window_overlay_init   (LbWindow     *self);
/* The image, slice or view changed: the texts and markers follow. */
void _lb_window_overlay_update (LbWindow     *self);
/* The same for any viewport (the active one's from the window's fields). */
void _lb_window_overlay_update_viewport (LbWindow   *self,
                                         LbViewport *viewport);

/* lb-window-nav.c */
/* Adds the reading actions (cine-faster, cine-slower, cine-bounce, wl-edit, flip-vertical,
 * fullscreen, leave-fullscreen, tag-browser), the bar under the canvas, the W/L popover, the
 * scale bar. */
void   _lb_window_nav_init             (LbWindow *self);
void   _lb_window_nav_dispose          (LbWindow *self);
/* The stack or the frame shown changed: the slider, its label and the canvas' paging follow. */
void   _lb_window_nav_update           (LbWindow *self);
/* The zoom, rotation, image or overlay changed: the scale bar follows. */
void   _lb_window_nav_update_scale_bar (LbWindow *self);
/* Cine: the rate in frames per second, and the frame after the one shown (loop or bounce). */
double _lb_window_nav_cine_fps         (LbWindow *self);
guint  _lb_window_nav_cine_next        (LbWindow *self);

/* lb-window-viewports.c */
/* Adds win.layout, win.sync-scroll, win.link-wl, win.reference-lines, win.next-viewport and
 * the layout button; points the window's widget fields at the active viewport. */
void        _lb_window_viewports_init       (LbWindow   *self);
void        _lb_window_viewports_dispose    (LbWindow   *self);
/* The active slice may have changed: the other viewports follow (synchronised scrolling) and
 * their reference lines are drawn anew. */
void        _lb_window_viewports_follow     (LbWindow   *self);
/* Opens @uri (a store or study panel row, a local file or folder) in the active viewport. */
void        _lb_window_viewports_open_uri   (LbWindow   *self,
                                             const char *uri);
LbViewport *_lb_window_viewports_get_active (LbWindow   *self);
/* Makes @vp the active viewport; FALSE (and says why) while a task of the active one runs. */
gboolean    _lb_window_viewports_activate   (LbWindow   *self,
                                             LbViewport *vp);

/* lb-window-actions.c */
/* Adds the win.* actions and builds the window/level menu. */
void _lb_window_actions_init   (LbWindow     *self);
/* The W/L menu: the file's presets, the CT presets (for HU images), the user's. */
void _lb_window_rebuild_wl_menu (LbWindow    *self);

/* lb-window-stores.c */
/* Makes the store tree and connects the store widgets (URL entry, lists, tree search). */
void _lb_window_stores_init    (LbWindow     *self);
/* What activating @entry's row in the store tree does: opens an image, or a local series as
 * its stack. */
void _lb_window_open_entry     (LbWindow     *self,
                                LbStoreEntry *entry);

/* lb-window-study.c */
/* Adds win.search-studies and connects the study panel to the tree and the search. */
void _lb_window_study_init           (LbWindow     *self);
void _lb_window_study_dispose        (LbWindow     *self);
/* The store changed: the search follows it, the panel empties. */
void _lb_window_study_update_actions (LbWindow     *self);
/* Opens @series (a series entry of the window's store) as a stack. */
void _lb_window_study_open_series    (LbWindow     *self,
                                      LbStoreEntry *series);

/* lb-window-filters.c */
void _lb_window_filters_init    (LbWindow     *self);
void _lb_window_filters_dispose (LbWindow     *self);
/* The store changed: fetch the filters it publishes. */
void _lb_window_filters_load_store (LbWindow  *self);
/* Runs @filter with @params (NULL = defaults) on the current image, pushing the result;
 * @aux: (nullable) its second image. */
void _lb_window_run_filter     (LbWindow       *self,
                                LbFilter       *filter,
                                LbFilterParams *params,
                                LbImage        *aux);
/* The worker threads a filter pass gets (the "threads" setting, 0: every processor). */
guint       _lb_window_filter_threads    (LbWindow       *self);
/* Opens the application's filter registry now if it is not open yet. */
void        _lb_window_ensure_registry   (LbWindow       *self);
/* lb-window-bench.c: adds win.run-benchmark. */
void        _lb_window_bench_init        (LbWindow       *self);
/* What a step of @filter with @params is called in the history ("Blur (size=5)"), its
 * provenance line, the short label of derived file names, and the bench panel's rows of
 * @timings (LbPassTiming) in benchmark mode. */
char       *_lb_window_filter_label      (LbFilter       *filter,
                                          LbFilterParams *params);
char       *_lb_window_filter_provenance (LbFilter       *filter,
                                          LbFilterParams *params);
const char *_lb_window_filter_file_label (LbFilter       *filter);
void        _lb_window_log_timings       (LbWindow       *self,
                                          GPtrArray      *timings);
/* The filter for an apply-filter target ("ID" or "store:ID"). (transfer none) */
LbFilter *_lb_window_find_filter (LbWindow   *self,
                                  const char *target);

/* lb-window-aux.c */
/* Lists @dialog's choices of a second image when its filter reads two. */
void     _lb_window_aux_setup (LbWindow      *self,
                               LbParamDialog *dialog);
/* (transfer none) The chosen second image; NULL with G_IO_ERROR_PENDING while it is read
 * (the dialog emits ::changed when it is there), or with the reason there is none. */
LbImage *_lb_window_aux_get   (LbWindow      *self,
                               LbParamDialog *dialog,
                               GError       **error);
/* Reads @file (a local image) and adds it to the dialog's choices, selected. */
void     _lb_window_aux_add_file (LbWindow   *self,
                                  GFile      *file);
/* The dialog closed: stops reading, forgets the choices. */
void     _lb_window_aux_clear (LbWindow      *self);

/* lb-window-series-filter.c */
/* Whether the image shown is a slice of a series that a filter may run over whole. */
gboolean _lb_window_series_filter_possible (LbWindow       *self);
/* Runs @filter over every slice of the series in the background, as one undoable step. */
void     _lb_window_series_filter_run      (LbWindow       *self,
                                            LbFilter       *filter,
                                            LbFilterParams *params,
                                            LbImage        *aux);
/* The history of slice @number (its @original, then the whole-series steps, at the position
 * the slice left says); lb-window-frames.c makes every slice's history here. */
LbHistory *_lb_window_series_filter_history (LbWindow      *self,
                                             guint          number,
                                             LbImage       *original);
/* How many states after the original of the slice shown are whole-series steps (its own
 * results are the ones after them). */
guint    _lb_window_series_filter_n_shared (LbWindow       *self);
/* The stack closes: its whole-series results go. */
void     _lb_window_series_filter_forget   (LbWindow       *self);
/* (transfer none) The slices of the whole-series step shown (the current state of the slice
 * shown is one), with its file label and provenance; NULL otherwise. */
GPtrArray *_lb_window_series_filter_current (LbWindow      *self,
                                             const char   **label,
                                             const char   **provenance);
/* The whole-series step of @slices was written back; whether the state shown is such a step
 * (every slice of it is then saved, whichever slice is shown). */
void     _lb_window_series_filter_mark_saved (LbWindow     *self,
                                              GPtrArray    *slices);
gboolean _lb_window_series_filter_is_saved  (LbWindow      *self);

/* lb-window-series-upload.c */
/* When the current state is a whole-series result: asks for a folder name and writes the
 * series there, TRUE; else FALSE (an upload of the image shown). */
gboolean _lb_window_series_upload (LbWindow *self);

/* lb-window-upload.c */
void _lb_window_upload         (LbWindow     *self);
void _lb_window_export         (LbWindow     *self);
/* Writes @image to the PNG file @path on a worker thread (atomically), as the operation
 * @what; then the status line says @done, or the error shows under @failed. @saved: the history's image @image was made from, marked saved once written (or
 * the pending request dropped when it fails); NULL for an image that is not a result. */
void _lb_window_write_png      (LbWindow     *self,
                                LbImage      *image,
                                LbImage      *saved,
                                const char   *path,
                                const char   *what,
                                const char   *done,
                                const char   *failed);
/* Exports without the file chooser (tests). */
void _lb_window_export_to_path (LbWindow     *self,
                                const char   *path);

/* lb-window-measure.c */
/* Adds the measurement actions (measure-tool, measure-leave, measure-delete, measurements,
 * measurements-save, measurements-export), the tool bar above the canvas, its panel. */
void _lb_window_measure_init    (LbWindow     *self);
void _lb_window_measure_dispose (LbWindow     *self);
/* An image (@uri) or, with @uri NULL, the series in self->frames was opened: the list starts
 * over with the measurements saved beside it. */
void _lb_window_measure_open    (LbWindow     *self,
                                 const char   *uri);
/* The history or the frame shown changed: the tools follow. */
void _lb_window_measure_sync    (LbWindow     *self);
LbMeasureLayer *_lb_window_measure_get_layer (LbWindow *self);
/* Writes the measurement list as CSV to @file (the export without the file chooser). */
void _lb_window_measure_export_to_file (LbWindow *self,
                                        GFile    *file);

/* lb-window-unsaved.c */
/* TRUE while the current image is a result that was neither uploaded nor exported. */
gboolean _lb_window_is_modified        (LbWindow      *self);
/* What the reader calls the image: its name, or for a DICOMweb instance its patient, series
 * and instance number; NULL when none is open. */
char    *_lb_window_image_title        (LbWindow      *self);
/* The title: the image's name, marked while it is modified; else the store. */
void     _lb_window_update_title       (LbWindow      *self);
/* Calls @func at once when nothing unsaved would be lost, else after asking Save / Discard /
 * Cancel (Save: once the result is written; Cancel: never). @free_func frees @data. */
void     _lb_window_after_unsaved      (LbWindow      *self,
                                        LbWindowThen   func,
                                        gpointer       data,
                                        GDestroyNotify free_func);
/* The upload or export of @image (the history's image, not its copy with provenance)
 * succeeded, or the save failed or was cancelled. */
void     _lb_window_saved              (LbWindow      *self,
                                        LbImage       *image);
void     _lb_window_save_failed        (LbWindow      *self);
/* For ::close-request: TRUE when closing waits for an answer first. */
gboolean _lb_window_close_needs_answer (LbWindow      *self);
void     _lb_window_unsaved_dispose    (LbWindow      *self);

/* lb-window-focus.c */
/* Menus, dialogs and operations give the keys back to the viewport when they end. */
void     _lb_window_focus_init         (LbWindow      *self);
void     _lb_window_focus_dispose      (LbWindow      *self);
/* The viewport takes the keys unless the reader is typing or working in the tree or a
 * control of the window (only focus left on the header bar's buttons, or none, moves). */
void     _lb_window_focus_viewport     (LbWindow      *self);

/* lb-window-export-view.c */
/* Adds win.export-view: the view as shown, overlays burnt in, to a PNG file. */
void     _lb_window_export_view_init   (LbWindow      *self);
/* Renders the viewport with its overlays into an RGBA image of its size in device pixels;
 * NULL (and @error) when nothing is shown. */
LbImage *_lb_window_render_view        (LbWindow      *self,
                                        GError       **error);

G_END_DECLS
