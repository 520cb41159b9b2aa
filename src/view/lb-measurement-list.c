/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-view"

#include "lb-measurement-list.h"

#include <string.h>

typedef struct {
  LbMeasurement *measurement;
  guint          frame;
} Entry;

struct _LbMeasurementList
{
  GObject  parent_instance;
  GArray  *entries;  /* Entry */
};

static void lb_measurement_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (LbMeasurementList, lb_measurement_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      lb_measurement_list_model_init))

static GType
model_get_item_type (GListModel *model)
{
  return LB_TYPE_MEASUREMENT;
}

static guint
model_get_n_items (GListModel *model)
{
  return LB_MEASUREMENT_LIST (model)->entries->len;
}

static gpointer
model_get_item (GListModel *model,
                guint       position)
{
  LbMeasurementList *self = LB_MEASUREMENT_LIST (model);

  if (position >= self->entries->len)
    return NULL;
  return g_object_ref (g_array_index (self->entries, Entry, position).measurement);
}

static void
lb_measurement_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = model_get_item_type;
  iface->get_n_items = model_get_n_items;
  iface->get_item = model_get_item;
}

static void
entry_clear (gpointer data)
{
  g_clear_object (&((Entry *) data)->measurement);
}

static void
lb_measurement_list_finalize (GObject *object)
{
  g_array_unref (LB_MEASUREMENT_LIST (object)->entries);
  G_OBJECT_CLASS (lb_measurement_list_parent_class)->finalize (object);
}

static void
lb_measurement_list_class_init (LbMeasurementListClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lb_measurement_list_finalize;
}

static void
lb_measurement_list_init (LbMeasurementList *self)
{
  self->entries = g_array_new (FALSE, TRUE, sizeof (Entry));
  g_array_set_clear_func (self->entries, entry_clear);
}

LbMeasurementList *
lb_measurement_list_new (void)
{
  return g_object_new (LB_TYPE_MEASUREMENT_LIST, NULL);
}

guint
lb_measurement_list_get_n (LbMeasurementList *self)
{
  g_return_val_if_fail (LB_IS_MEASUREMENT_LIST (self), 0);
  return self->entries->len;
}

LbMeasurement *
lb_measurement_list_get (LbMeasurementList *self,
                         guint              position)
{
  g_return_val_if_fail (LB_IS_MEASUREMENT_LIST (self), NULL);
  g_return_val_if_fail (position < self->entries->len, NULL);
  return g_array_index (self->entries, Entry, position).measurement;
}

gboolean
lb_measurement_list_find (LbMeasurementList *self,
                          LbMeasurement     *measurement,
                          guint             *position)
{
  g_return_val_if_fail (LB_IS_MEASUREMENT_LIST (self), FALSE);
  for (guint i = 0; i < self->entries->len; i++)
    if (g_array_index (self->entries, Entry, i).measurement == measurement)
      {
        if (position)
          *position = i;
        return TRUE;
      }
  return FALSE;
}

guint
lb_measurement_list_get_frame (LbMeasurementList *self,
                               LbMeasurement     *measurement)
{
  guint i;

  if (!lb_measurement_list_find (self, measurement, &i))
    return 0;
  return g_array_index (self->entries, Entry, i).frame;
}

void
lb_measurement_list_insert (LbMeasurementList *self,
                            guint              position,
                            LbMeasurement     *measurement,
                            guint              frame)
{
  Entry e;

  g_return_if_fail (LB_IS_MEASUREMENT_LIST (self));
  g_return_if_fail (LB_IS_MEASUREMENT (measurement));
  position = MIN (position, self->entries->len);
  e.measurement = g_object_ref (measurement);
  e.frame = frame;
  g_array_insert_val (self->entries, position, e);
  g_list_model_items_changed (G_LIST_MODEL (self), position, 0, 1);
}

void
lb_measurement_list_append (LbMeasurementList *self,
                            LbMeasurement     *measurement,
                            guint              frame)
{
  g_return_if_fail (LB_IS_MEASUREMENT_LIST (self));
  lb_measurement_list_insert (self, self->entries->len, measurement, frame);
}

gboolean
lb_measurement_list_remove (LbMeasurementList *self,
                            LbMeasurement     *measurement)
{
  guint i;

  if (!lb_measurement_list_find (self, measurement, &i))
    return FALSE;
  g_array_remove_index (self->entries, i);
  g_list_model_items_changed (G_LIST_MODEL (self), i, 1, 0);
  return TRUE;
}

void
lb_measurement_list_clear (LbMeasurementList *self)
{
  guint n;

  g_return_if_fail (LB_IS_MEASUREMENT_LIST (self));
  n = self->entries->len;
  if (n == 0)
    return;
  g_array_set_size (self->entries, 0);
  g_list_model_items_changed (G_LIST_MODEL (self), 0, n, 0);
}

void
lb_measurement_list_changed (LbMeasurementList *self,
                             LbMeasurement     *measurement)
{
  guint i;

  if (lb_measurement_list_find (self, measurement, &i))
    g_list_model_items_changed (G_LIST_MODEL (self), i, 1, 1);
}

GPtrArray *
lb_measurement_list_dup_frame (LbMeasurementList *self,
                               guint              frame)
{
  GPtrArray *out;

  g_return_val_if_fail (LB_IS_MEASUREMENT_LIST (self), NULL);
  out = g_ptr_array_new ();
  for (guint i = 0; i < self->entries->len; i++)
    if (g_array_index (self->entries, Entry, i).frame == frame)
      g_ptr_array_add (out, g_array_index (self->entries, Entry, i).measurement);
  return out;
}

/* ---- undoable changes -------------------------------------------------------------------- */

typedef enum { EDIT_ADD, EDIT_REMOVE, EDIT_MODIFY } EditKind;

typedef struct {
  EditKind           kind;
  LbMeasurementList *list;
  LbMeasurement     *measurement;
  guint              frame;
  guint              position;
  LbMeasurement     *before;  /* EDIT_MODIFY: the points and text before … */
  LbMeasurement     *after;   /* … and after */
} Edit;

static void
edit_free (gpointer data)
{
  Edit *e = data;

  g_object_unref (e->list);
  g_object_unref (e->measurement);
  g_clear_object (&e->before);
  g_clear_object (&e->after);
  g_free (e);
}

/* Gives @m the points and text of @from. */
static void
assign (LbMeasurement *m, LbMeasurement *from)
{
  guint n = lb_measurement_get_n_points (from);

  while (lb_measurement_get_n_points (m) > n)
    lb_measurement_remove_last_point (m);
  for (guint i = 0; i < n; i++)
    {
      LbMeasurementPoint p = lb_measurement_get_point (from, i);

      if (i < lb_measurement_get_n_points (m))
        lb_measurement_set_point (m, i, p.x, p.y);
      else
        lb_measurement_add_point (m, p.x, p.y);
    }
  lb_measurement_set_text (m, lb_measurement_get_text (from));
}

static void
edit_apply (gpointer data,
            gboolean redo)
{
  Edit *e = data;
  gboolean add = (e->kind == EDIT_ADD) == redo;

  switch (e->kind)
    {
    case EDIT_ADD:
    case EDIT_REMOVE:
      if (add)
        lb_measurement_list_insert (e->list, e->position, e->measurement, e->frame);
      else
        lb_measurement_list_remove (e->list, e->measurement);
      break;
    case EDIT_MODIFY:
    default:
      assign (e->measurement, redo ? e->after : e->before);
      lb_measurement_list_changed (e->list, e->measurement);
      break;
    }
}

static Edit *
edit_new (EditKind kind, LbMeasurementList *list, LbMeasurement *m)
{
  Edit *e = g_new0 (Edit, 1);

  e->kind = kind;
  e->list = g_object_ref (list);
  e->measurement = g_object_ref (m);
  return e;
}

void
lb_measurement_list_add_undoable (LbMeasurementList *self,
                                  LbHistory         *history,
                                  LbMeasurement     *measurement,
                                  guint              frame,
                                  const char        *label)
{
  Edit *e;

  g_return_if_fail (LB_IS_MEASUREMENT_LIST (self));
  lb_measurement_list_append (self, measurement, frame);
  if (history == NULL)
    return;
  e = edit_new (EDIT_ADD, self, measurement);
  e->frame = frame;
  e->position = self->entries->len - 1;
  lb_history_push_edit (history, label, edit_apply, e, edit_free);
}

gboolean
lb_measurement_list_remove_undoable (LbMeasurementList *self,
                                     LbHistory         *history,
                                     LbMeasurement     *measurement,
                                     const char        *label)
{
  g_autoptr(LbMeasurement) keep = NULL;
  guint position, frame;
  Edit *e;

  g_return_val_if_fail (LB_IS_MEASUREMENT_LIST (self), FALSE);
  if (!lb_measurement_list_find (self, measurement, &position))
    return FALSE;
  keep = g_object_ref (measurement);
  frame = g_array_index (self->entries, Entry, position).frame;
  lb_measurement_list_remove (self, measurement);
  if (history == NULL)
    return TRUE;
  e = edit_new (EDIT_REMOVE, self, measurement);
  e->frame = frame;
  e->position = position;
  lb_history_push_edit (history, label, edit_apply, e, edit_free);
  return TRUE;
}

static gboolean
same (LbMeasurement *a, LbMeasurement *b)
{
  guint n = lb_measurement_get_n_points (a);

  return n == lb_measurement_get_n_points (b)
         && memcmp (lb_measurement_get_points (a), lb_measurement_get_points (b),
                    n * sizeof (LbMeasurementPoint)) == 0
         && g_strcmp0 (lb_measurement_get_text (a), lb_measurement_get_text (b)) == 0;
}

void
lb_measurement_list_record_edit (LbMeasurementList *self,
                                 LbHistory         *history,
                                 LbMeasurement     *measurement,
                                 LbMeasurement     *before,
                                 const char        *label)
{
  Edit *e;

  g_return_if_fail (LB_IS_MEASUREMENT_LIST (self));
  g_return_if_fail (LB_IS_MEASUREMENT (before));
  if (history == NULL || same (measurement, before))
    return;
  e = edit_new (EDIT_MODIFY, self, measurement);
  e->before = lb_measurement_copy (before);
  e->after = lb_measurement_copy (measurement);
  lb_history_push_edit (history, label, edit_apply, e, edit_free);
}
