/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-history"

#include "config.h"

#include "lb-history.h"

typedef struct {
  LbImage *image;
  char    *label;
  char    *provenance;  /* NULL for the original and for revert steps */
  char    *file_label;
  gboolean revert;      /* a revert restarts the chain */
} Step;

struct _LbHistory {
  GObject  parent_instance;

  GArray  *steps;       /* of Step */
  guint    position;
};

G_DEFINE_FINAL_TYPE (LbHistory, lb_history, G_TYPE_OBJECT)

enum { PROP_0, PROP_CAN_UNDO, PROP_CAN_REDO, PROP_POSITION, N_PROPS };
static GParamSpec *properties[N_PROPS];

static void
step_clear (gpointer data)
{
  Step *s = data;

  g_clear_object (&s->image);
  g_clear_pointer (&s->label, g_free);
  g_clear_pointer (&s->provenance, g_free);
  g_clear_pointer (&s->file_label, g_free);
}

static void
changed (LbHistory *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_UNDO]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_REDO]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_POSITION]);
}

static void
lb_history_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  LbHistory *self = LB_HISTORY (object);

  switch (prop_id)
    {
    case PROP_CAN_UNDO: g_value_set_boolean (value, lb_history_can_undo (self)); break;
    case PROP_CAN_REDO: g_value_set_boolean (value, lb_history_can_redo (self)); break;
    case PROP_POSITION: g_value_set_uint (value, self->position); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lb_history_finalize (GObject *object)
{
  LbHistory *self = LB_HISTORY (object);

  g_array_unref (self->steps);
  G_OBJECT_CLASS (lb_history_parent_class)->finalize (object);
}

static void
lb_history_class_init (LbHistoryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = lb_history_get_property;
  object_class->finalize = lb_history_finalize;
  properties[PROP_CAN_UNDO] = g_param_spec_boolean ("can-undo", NULL, NULL, FALSE,
                                                    G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_CAN_REDO] = g_param_spec_boolean ("can-redo", NULL, NULL, FALSE,
                                                    G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_POSITION] = g_param_spec_uint ("position", NULL, NULL, 0, G_MAXUINT, 0,
                                                 G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
lb_history_init (LbHistory *self)
{
  self->steps = g_array_new (FALSE, TRUE, sizeof (Step));
  g_array_set_clear_func (self->steps, step_clear);
}

LbHistory *
lb_history_new (LbImage *original)
{
  LbHistory *self;
  Step s = { 0 };

  g_return_val_if_fail (LB_IS_IMAGE (original), NULL);
  self = g_object_new (LB_TYPE_HISTORY, NULL);
  s.image = g_object_ref (original);
  g_array_append_val (self->steps, s);
  return self;
}

static void
push_step (LbHistory *self,
           Step      *s)
{
  /* a new step after undo forgets the redo tail */
  if (self->position + 1 < self->steps->len)
    g_array_set_size (self->steps, self->position + 1);
  g_array_append_val (self->steps, *s);
  self->position = self->steps->len - 1;
  changed (self);
}

void
lb_history_push (LbHistory  *self,
                 LbImage    *image,
                 const char *label,
                 const char *provenance)
{
  Step s = { 0 };

  g_return_if_fail (LB_IS_HISTORY (self));
  g_return_if_fail (LB_IS_IMAGE (image));
  s.image = g_object_ref (image);
  s.label = g_strdup (label);
  s.provenance = g_strdup (provenance);
  push_step (self, &s);
}

gboolean
lb_history_undo (LbHistory *self)
{
  g_return_val_if_fail (LB_IS_HISTORY (self), FALSE);
  if (self->position == 0)
    return FALSE;
  self->position--;
  changed (self);
  return TRUE;
}

gboolean
lb_history_redo (LbHistory *self)
{
  g_return_val_if_fail (LB_IS_HISTORY (self), FALSE);
  if (self->position + 1 >= self->steps->len)
    return FALSE;
  self->position++;
  changed (self);
  return TRUE;
}

gboolean
lb_history_revert (LbHistory *self)
{
  Step s = { 0 };

  g_return_val_if_fail (LB_IS_HISTORY (self), FALSE);
  if (lb_history_get_current (self) == lb_history_get_original (self))
    return FALSE;
  s.image = g_object_ref (lb_history_get_original (self));
  s.label = g_strdup ("revert");
  s.revert = TRUE;
  push_step (self, &s);
  return TRUE;
}

gboolean
lb_history_can_undo (LbHistory *self)
{
  g_return_val_if_fail (LB_IS_HISTORY (self), FALSE);
  return self->position > 0;
}

gboolean
lb_history_can_redo (LbHistory *self)
{
  g_return_val_if_fail (LB_IS_HISTORY (self), FALSE);
  return self->position + 1 < self->steps->len;
}

LbImage *
lb_history_get_current (LbHistory *self)
{
  g_return_val_if_fail (LB_IS_HISTORY (self), NULL);
  return g_array_index (self->steps, Step, self->position).image;
}

LbImage *
lb_history_get_original (LbHistory *self)
{
  g_return_val_if_fail (LB_IS_HISTORY (self), NULL);
  return g_array_index (self->steps, Step, 0).image;
}

guint
lb_history_get_position (LbHistory *self)
{
  g_return_val_if_fail (LB_IS_HISTORY (self), 0);
  return self->position;
}

guint
lb_history_get_length (LbHistory *self)
{
  g_return_val_if_fail (LB_IS_HISTORY (self), 0);
  return self->steps->len;
}

const char *
lb_history_get_label (LbHistory *self)
{
  g_return_val_if_fail (LB_IS_HISTORY (self), NULL);
  return g_array_index (self->steps, Step, self->position).label;
}

char *
lb_history_dup_chain (LbHistory *self)
{
  GString *s;
  guint first = 1;

  g_return_val_if_fail (LB_IS_HISTORY (self), NULL);
  /* the chain that produced the current state starts after the last revert */
  for (guint i = 1; i <= self->position; i++)
    if (g_array_index (self->steps, Step, i).revert)
      first = i + 1;
  if (first > self->position)
    return NULL;
  s = g_string_new (NULL);
  for (guint i = first; i <= self->position; i++)
    {
      const Step *st = &g_array_index (self->steps, Step, i);
      if (s->len > 0)
        g_string_append_c (s, '\n');
      g_string_append (s, st->provenance != NULL ? st->provenance : st->label);
    }
  return g_string_free (s, FALSE);
}

const char *
lb_history_get_file_label (LbHistory *self)
{
  g_return_val_if_fail (LB_IS_HISTORY (self), NULL);
  for (guint i = self->position; i > 0; i--)
    {
      const Step *st = &g_array_index (self->steps, Step, i);
      if (st->revert)
        return NULL;
      if (st->file_label != NULL)
        return st->file_label;
    }
  return NULL;
}

void
lb_history_set_file_label (LbHistory  *self,
                           const char *label)
{
  Step *st;

  g_return_if_fail (LB_IS_HISTORY (self));
  st = &g_array_index (self->steps, Step, self->position);
  g_free (st->file_label);
  st->file_label = g_strdup (label);
}

LbImage *
lb_history_get_image_at (LbHistory *self,
                         guint      index)
{
  g_return_val_if_fail (LB_IS_HISTORY (self), NULL);
  g_return_val_if_fail (index < self->steps->len, NULL);
  return g_array_index (self->steps, Step, index).image;
}

const char *
lb_history_get_label_at (LbHistory *self,
                         guint      index)
{
  g_return_val_if_fail (LB_IS_HISTORY (self), NULL);
  g_return_val_if_fail (index < self->steps->len, NULL);
  return g_array_index (self->steps, Step, index).label;
}
