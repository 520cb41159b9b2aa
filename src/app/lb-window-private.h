/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-bench-panel.h"
#include "lb-canvas.h"
#include "lb-filter-registry.h"
#include "lb-filter-params.h"
#include "lb-frame-source.h"
#include "lb-history.h"
#include "lb-store-browser.h"
#include "lb-window.h"

G_BEGIN_DECLS

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

  /* Frames of a multi-frame image (lb-window-frames.c) */
  LbFrameSource  *frames;             /* NULL unless the image has several frames */
  guint           frame;              /* the frame shown, from 1 */
  guint           frame_serial;       /* a newer frame load makes older callbacks no-ops */
  GCancellable   *frame_cancellable;
  gboolean        frame_loading;
  guint           cine_source;        /* the cine timer, 0 when not playing */
  GCancellable   *series_cancellable; /* reading a series' headers */

  /* Reading a stack (lb-window-nav.c) */
  GtkWidget      *nav_bar;            /* under the canvas: slice slider, cine controls */
  GtkWidget      *slice_scale;
  GtkWidget      *slice_scale_label;
  GtkWidget      *cine_fps_spin;
  LbFrameSource  *nav_frames;         /* the stack the controls were last set up for */
  gboolean        nav_updating;       /* the code moves the controls: no stepping */
  int             cine_step;          /* +1 or −1: the direction of a bouncing cine */
  GtkWidget      *wl_edit_button;
  GtkWidget      *wl_center_spin;
  GtkWidget      *wl_width_spin;
  GtkWidget      *scale_bar;          /* a drawing over the canvas */
  double          scale_bar_mm;       /* its length, 0 when none is shown */
  double          scale_bar_px;       /* the same in logical pixels */
  gboolean        was_fullscreen;
  GtkWidget      *tag_browser;        /* LbTagBrowser, made on first use */
  char           *tag_uri;            /* the file whose header it shows, NULL for a slice */
  GCancellable   *tag_cancellable;    /* reading a store image's data set for it */

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
/* Shows @series (a series source) as one stack, from its first slice; @name for the title. */
void _lb_window_frames_open_series (LbWindow      *self,
                                    LbFrameSource *series,
                                    const char    *name);
/* Reads the headers of @folder's files in the background and, when they are one DICOM series,
 * shows it as a stack. */
void _lb_window_frames_open_folder (LbWindow *self,
                                    GFile    *folder);
/* The same for a series of a local folder's store (its instances are local files); errors
 * are shown. */
void _lb_window_frames_open_store_series (LbWindow     *self,
                                          LbStoreEntry *series);

/* lb-window-overlay.c */
/* Adds win.overlay (the corner texts and orientation markers over the canvas). */
void _lb_window_overlay_init   (LbWindow     *self);
/* The image, slice or view changed: the texts and markers follow. */
void _lb_window_overlay_update (LbWindow     *self);

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

/* lb-window-actions.c */
/* Adds the win.* actions and builds the window/level menu. */
void _lb_window_actions_init   (LbWindow     *self);
/* The W/L menu: the file's presets, the CT presets (for HU images), the user's. */
void _lb_window_rebuild_wl_menu (LbWindow    *self);

/* lb-window-stores.c */
/* Makes the store tree and connects the store widgets (URL entry, lists, tree search). */
void _lb_window_stores_init    (LbWindow     *self);

/* lb-window-study.c */
/* Adds win.search-studies and connects the study panel to the tree and the search. */
void _lb_window_study_init           (LbWindow     *self);
void _lb_window_study_dispose        (LbWindow     *self);
/* The store changed: the search follows it, the panel empties. */
void _lb_window_study_update_actions (LbWindow     *self);
/* Opens @series (a series entry of the window's store) as a stack. */
void _lb_window_study_open_series    (LbWindow     *self,
                                      LbStoreEntry *series);
/* A DICOMweb series: for now its first instance (see lb-window-study.c). */
void _lb_window_study_open_dicomweb_series (LbWindow     *self,
                                            LbStoreEntry *series);

/* lb-window-filters.c */
void _lb_window_filters_init    (LbWindow     *self);
void _lb_window_filters_dispose (LbWindow     *self);
/* The store changed: fetch the filters it publishes. */
void _lb_window_filters_load_store (LbWindow  *self);
/* Runs @filter with @params (NULL = defaults) on the current image, pushing the result. */
void _lb_window_run_filter     (LbWindow       *self,
                                LbFilter       *filter,
                                LbFilterParams *params);
/* The filter for an apply-filter target ("ID" or "store:ID"). (transfer none) */
LbFilter *_lb_window_find_filter (LbWindow   *self,
                                  const char *target);

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
