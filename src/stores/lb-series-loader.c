/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-series-loader"

#include "lb-series-loader.h"

#include "lb-limits.h"

typedef enum {
  FRAME_PENDING,
  FRAME_ACTIVE,
  FRAME_LOADED,
  FRAME_FAILED,
} FrameState;

typedef struct {
  FrameState    state;
  LbImage      *image;       /* FRAME_LOADED */
  guint64       bytes;       /* of @image */
  GCancellable *cancellable; /* FRAME_ACTIVE: the request's */
  GError       *error;       /* FRAME_FAILED */
} Frame;

struct _LbSeriesLoader {
  GObject        parent_instance;
  LbFrameSource *source;
  guint          n;
  Frame         *frames;      /* [n], frame N at N - 1 */
  guint          current;     /* 1 … n; 0 before set_current */
  guint          parallel;
  guint64        budget;
  guint64        bytes;
  guint64        frame_bytes; /* the last loaded frame's bytes: the estimate for the next */
  guint          n_loaded;
  guint          n_active;
  guint          n_requests;
  gboolean       cancelled;
};

enum { SIGNAL_FRAME_LOADED, SIGNAL_FRAME_FAILED, SIGNAL_PROGRESS, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (LbSeriesLoader, lb_series_loader, G_TYPE_OBJECT)

static void
frame_drop (Frame *f)
{
  g_clear_object (&f->image);
  f->bytes = 0;
  if (f->cancellable != NULL)
    g_cancellable_cancel (f->cancellable);
  g_clear_object (&f->cancellable);
  g_clear_error (&f->error);
  f->state = FRAME_PENDING;
}

static void
lb_series_loader_dispose (GObject *object)
{
  LbSeriesLoader *self = LB_SERIES_LOADER (object);

  /* requests hold a reference: none is active when the last one goes, but be sure */
  for (guint i = 0; self->frames != NULL && i < self->n; i++)
    frame_drop (&self->frames[i]);
  g_clear_pointer (&self->frames, g_free);
  g_clear_object (&self->source);
  G_OBJECT_CLASS (lb_series_loader_parent_class)->dispose (object);
}

static void
lb_series_loader_class_init (LbSeriesLoaderClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = lb_series_loader_dispose;
  signals[SIGNAL_FRAME_LOADED] = g_signal_new ("frame-loaded", G_TYPE_FROM_CLASS (klass),
                                               G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                               G_TYPE_NONE, 1, G_TYPE_UINT);
  signals[SIGNAL_FRAME_FAILED] = g_signal_new ("frame-failed", G_TYPE_FROM_CLASS (klass),
                                               G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                               G_TYPE_NONE, 1, G_TYPE_UINT);
  signals[SIGNAL_PROGRESS] = g_signal_new ("progress", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                           G_TYPE_NONE, 0);
}

static void
lb_series_loader_init (LbSeriesLoader *self)
{
}

LbSeriesLoader *
lb_series_loader_new (LbFrameSource *source, guint parallel, guint64 budget_bytes)
{
  LbSeriesLoader *self;

  g_return_val_if_fail (LB_IS_FRAME_SOURCE (source), NULL);
  self = g_object_new (LB_TYPE_SERIES_LOADER, NULL);
  self->source = g_object_ref (source);
  self->n = lb_frame_source_get_n_frames (source);
  self->frames = g_new0 (Frame, self->n);
  self->parallel = parallel == 0 ? LB_SERIES_LOADER_DEFAULT_PARALLEL
                                 : MIN (parallel, LB_SERIES_LOADER_MAX_PARALLEL);
  self->budget = budget_bytes ? budget_bytes : lb_limits_get_default ()->max_bytes;
  return self;
}

LbFrameSource *
lb_series_loader_get_source (LbSeriesLoader *self)
{
  g_return_val_if_fail (LB_IS_SERIES_LOADER (self), NULL);
  return self->source;
}

static guint
distance (LbSeriesLoader *self, guint number)
{
  return number > self->current ? number - self->current : self->current - number;
}

/* The frame in @state nearest the current one (the later on a tie) and, with @farthest, the
 * one farthest from it (the earlier on a tie); 0 when none. */
static guint
find (LbSeriesLoader *self, FrameState state, gboolean farthest)
{
  guint best = 0;

  for (guint number = 1; number <= self->n; number++)
    {
      if (self->frames[number - 1].state != state)
        continue;
      if (best == 0
          || (farthest ? distance (self, number) > distance (self, best)
                       : distance (self, number) <= distance (self, best)))
        best = number;
    }
  return best;
}

static void
drop_loaded (LbSeriesLoader *self, guint number)
{
  Frame *f = &self->frames[number - 1];

  self->bytes -= f->bytes;
  self->n_loaded--;
  frame_drop (f);
}

typedef struct {
  LbSeriesLoader *self;
  guint           number;
  GCancellable   *cancellable;
} Request;

static void schedule (LbSeriesLoader *self);

static void
on_loaded (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Request *r = user_data;
  LbSeriesLoader *self = r->self;
  GError *error = NULL;
  LbImage *image = lb_frame_source_load_finish (LB_FRAME_SOURCE (source), result, &error);
  Frame *f = self->frames != NULL ? &self->frames[r->number - 1] : NULL;

  /* a request cancelled for another (paging, cancel) has been forgotten already */
  if (f == NULL || f->cancellable != r->cancellable)
    {
      g_clear_object (&image);
      g_clear_error (&error);
      goto out;
    }
  g_clear_object (&f->cancellable);
  self->n_active--;
  if (image == NULL)
    {
      f->state = FRAME_FAILED;
      f->error = error;
      g_signal_emit (self, signals[SIGNAL_FRAME_FAILED], 0, r->number);
    }
  else
    {
      f->state = FRAME_LOADED;
      f->image = image;
      f->bytes = (guint64) lb_image_get_stride (image) * lb_image_get_height (image);
      self->frame_bytes = f->bytes;
      self->bytes += f->bytes;
      self->n_loaded++;
      /* over the budget: the frames farthest from the reader go, never the one just read
       * when it is the current one */
      while (self->bytes > self->budget)
        {
          guint far = find (self, FRAME_LOADED, TRUE);

          if (far == 0 || far == self->current)
            break;
          drop_loaded (self, far);
          if (far == r->number)
            break;
        }
      if (self->frames[r->number - 1].state == FRAME_LOADED)
        g_signal_emit (self, signals[SIGNAL_FRAME_LOADED], 0, r->number);
    }
  schedule (self);
  g_signal_emit (self, signals[SIGNAL_PROGRESS], 0);
out:
  g_object_unref (r->cancellable);
  g_object_unref (r->self);
  g_free (r);
}

static void
start (LbSeriesLoader *self, guint number)
{
  Frame *f = &self->frames[number - 1];
  Request *r = g_new0 (Request, 1);

  f->state = FRAME_ACTIVE;
  f->cancellable = g_cancellable_new ();
  r->self = g_object_ref (self);
  r->number = number;
  r->cancellable = g_object_ref (f->cancellable);
  self->n_active++;
  self->n_requests++;
  lb_frame_source_load_async (self->source, number, f->cancellable, on_loaded, r);
}

/* Starts requests, nearest first, while connections are free and the budget allows. */
static void
schedule (LbSeriesLoader *self)
{
  while (self->current > 0 && self->n_active < self->parallel)
    {
      guint next = find (self, FRAME_PENDING, FALSE);

      if (next == 0 || (self->cancelled && next != self->current))
        return;
      /* room for it and the requests under way, from the last frame's size */
      while (self->bytes + (guint64) (self->n_active + 1) * self->frame_bytes > self->budget)
        {
          guint far = find (self, FRAME_LOADED, TRUE);

          if (far == 0 || distance (self, far) <= distance (self, next))
            return;  /* the frames kept are all nearer: the window is full */
          drop_loaded (self, far);
        }
      start (self, next);
    }
}

void
lb_series_loader_set_current (LbSeriesLoader *self, guint number)
{
  Frame *f;

  g_return_if_fail (LB_IS_SERIES_LOADER (self));
  if (self->n == 0)
    return;
  self->current = CLAMP (number, 1, self->n);
  f = &self->frames[self->current - 1];
  /* a failed frame is tried again when the reader comes back to it */
  if (f->state == FRAME_FAILED)
    frame_drop (f);
  if (f->state == FRAME_PENDING && self->n_active >= self->parallel)
    {
      /* the reader waits for this one: the farthest request makes room */
      guint far = find (self, FRAME_ACTIVE, TRUE);

      if (far != 0)
        {
          frame_drop (&self->frames[far - 1]);
          self->n_active--;
        }
    }
  schedule (self);
}

LbImage *
lb_series_loader_get_image (LbSeriesLoader *self, guint number)
{
  g_return_val_if_fail (LB_IS_SERIES_LOADER (self), NULL);
  if (number < 1 || number > self->n || self->frames[number - 1].state != FRAME_LOADED)
    return NULL;
  return g_object_ref (self->frames[number - 1].image);
}

const GError *
lb_series_loader_get_error (LbSeriesLoader *self, guint number)
{
  g_return_val_if_fail (LB_IS_SERIES_LOADER (self), NULL);
  if (number < 1 || number > self->n)
    return NULL;
  return self->frames[number - 1].error;
}

guint
lb_series_loader_get_n_loaded (LbSeriesLoader *self)
{
  g_return_val_if_fail (LB_IS_SERIES_LOADER (self), 0);
  return self->n_loaded;
}

guint
lb_series_loader_get_n_requests (LbSeriesLoader *self)
{
  g_return_val_if_fail (LB_IS_SERIES_LOADER (self), 0);
  return self->n_requests;
}

guint
lb_series_loader_get_n_active (LbSeriesLoader *self)
{
  g_return_val_if_fail (LB_IS_SERIES_LOADER (self), 0);
  return self->n_active;
}

guint64
lb_series_loader_get_bytes (LbSeriesLoader *self)
{
  g_return_val_if_fail (LB_IS_SERIES_LOADER (self), 0);
  return self->bytes;
}

gboolean
lb_series_loader_is_idle (LbSeriesLoader *self)
{
  g_return_val_if_fail (LB_IS_SERIES_LOADER (self), TRUE);
  return self->n_active == 0;
}

void
lb_series_loader_cancel (LbSeriesLoader *self)
{
  g_return_if_fail (LB_IS_SERIES_LOADER (self));
  self->cancelled = TRUE;
  /* the frame the reader waits for goes on: it is what the viewport shows next */
  for (guint i = 0; i < self->n; i++)
    if (self->frames[i].state == FRAME_ACTIVE && i + 1 != self->current)
      {
        frame_drop (&self->frames[i]);
        self->n_active--;
      }
  g_signal_emit (self, signals[SIGNAL_PROGRESS], 0);
}

gboolean
lb_series_loader_is_cancelled (LbSeriesLoader *self)
{
  g_return_val_if_fail (LB_IS_SERIES_LOADER (self), FALSE);
  return self->cancelled;
}
