/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/**
 * LbValueModel:
 *
 * What the samples of one grey image mean, as DICOM defines it: the Modality LUT (rescale
 * slope/intercept or a Modality LUT Sequence table, PS3.3 C.11.1) that turns a sample into a
 * real-world value, the units of that value, pixel padding (PS3.3 C.7.5.1.1.2), the VOI
 * (every window preset with its explanation, the VOI LUT Function and VOI LUT Sequence tables,
 * PS3.3 C.11.2), the presentation (MONOCHROME1: the minimum is white; the Presentation LUT
 * Shape, PS3.3 C.11.6) and what write-back needs to store values again (whether the source was
 * signed, its BitsStored, its lossy-compression history).
 *
 * A colour image (RGB, and YBR or palette colour converted to RGB) has a model too, marked
 * colour, that holds only what applies to colour: the lossy-compression history. Its grey
 * parts (Modality LUT, VOI, padding, presentation) are the identity.
 *
 * Samples are always unsigned. A signed source (PixelRepresentation 1) is held as offset
 * binary: sample = stored + 32768 in 16-bit samples (the "sample offset"), so every filter
 * kernel, which works on unsigned samples, is correct on signed data. The offset never
 * reaches a real-world value: value = (sample − offset) × slope + intercept, exactly the
 * stored × slope + intercept of PS3.3 C.11.1.
 *
 * The model describes one image (one frame): a multi-frame object whose functional groups give
 * each frame its own rescale or window has one model per frame.
 *
 * Immutable and reference counted, so images and metadata share it freely across threads;
 * build one with #LbValueModelBuilder.
 */
typedef struct _LbValueModel LbValueModel;
typedef struct _LbValueModelBuilder LbValueModelBuilder;

/* The sample offset of signed sources: stored value −32768 is sample 0. */
#define LB_VALUE_MODEL_SIGNED_OFFSET 32768

/* How a sample becomes a real-world value (PS3.3 C.11.1). */
typedef enum {
  LB_MODALITY_NONE,     /* the source has no Modality LUT: the value is the stored value */
  LB_MODALITY_RESCALE,  /* stored × RescaleSlope + RescaleIntercept */
  LB_MODALITY_LUT,      /* Modality LUT Sequence: a table indexed by the stored value */
} LbModalityKind;

/* VOI LUT Function (0028,1056), PS3.3 C.11.2.1.2 and C.11.2.1.3. */
typedef enum {
  LB_VOI_LINEAR,        /* the default */
  LB_VOI_LINEAR_EXACT,
  LB_VOI_SIGMOID,
} LbVoiFunction;

/* Presentation LUT Shape (2050,0020), PS3.3 C.11.6.1.2. */
typedef enum {
  LB_PRESENTATION_UNSPECIFIED, /* absent: the photometric interpretation decides */
  LB_PRESENTATION_IDENTITY,    /* the VOI output is the P-Value */
  LB_PRESENTATION_INVERSE,     /* P-Value = maximum − VOI output */
} LbPresentationShape;

/* "IDENTITY", "INVERSE" (NULL for unspecified); parsing is exact (DICOM CS). */
const char *lb_presentation_shape_to_string   (LbPresentationShape  shape);
gboolean    lb_presentation_shape_from_string (const char          *text,
                                               LbPresentationShape *shape);

/* "LINEAR", "LINEAR_EXACT", "SIGMOID"; parsing is exact (DICOM CS). FALSE for anything else. */
const char *lb_voi_function_to_string   (LbVoiFunction  function);
gboolean    lb_voi_function_from_string (const char    *text,
                                         LbVoiFunction *function);

/**
 * LbValueLut:
 * @first: the first input value mapped (LUT Descriptor value 2). For a Modality LUT the input
 *   is the stored value (not the sample: the model subtracts the sample offset); for a VOI LUT
 *   it is the Modality LUT's output.
 * @n_entries: 1 to 65536 (a descriptor's 0 means 65536)
 * @bits: bits per entry (LUT Descriptor value 3), 1 to 16: entries range over 0 … 2^bits − 1
 * @data: the entries
 * @explanation: (nullable): LUTExplanation, or for a Modality LUT its ModalityLUTType
 *
 * A lookup table of a LUT Sequence item (PS3.3 C.11.1.1, C.11.2.1.1). An input below @first
 * maps to the first entry, one at or past @first + @n_entries − 1 to the last.
 */
typedef struct {
  gint32         first;
  guint          n_entries;
  guint          bits;
  const guint16 *data;
  const char    *explanation;
} LbValueLut;

/* The entry for input @x (clamped to the table as PS3.3 says). */
guint       lb_value_lut_lookup         (const LbValueLut *lut,
                                         double            x);

#define LB_TYPE_VALUE_MODEL (lb_value_model_get_type ())
GType          lb_value_model_get_type  (void) G_GNUC_CONST;
LbValueModel  *lb_value_model_ref       (LbValueModel       *model);
void           lb_value_model_unref     (LbValueModel       *model);
gboolean       lb_value_model_equal     (const LbValueModel *a,
                                         const LbValueModel *b);

/* The sample size the model applies to: 8 or 16 bits. An image whose samples are of another
 * size (a filter changed the format) is not described by it. */
guint          lb_value_model_get_sample_bits   (const LbValueModel *model);
/* 0, or %LB_VALUE_MODEL_SIGNED_OFFSET for a signed source. */
guint          lb_value_model_get_sample_offset (const LbValueModel *model);
/* The stored value of @sample: @sample − the sample offset. */
gint32         lb_value_model_sample_to_stored  (const LbValueModel *model,
                                                 guint               sample);

/* Modality LUT. */
LbModalityKind lb_value_model_get_modality_kind (const LbValueModel *model);
/* The real-world value of @sample (PS3.3 C.11.1). */
double         lb_value_model_to_value          (const LbValueModel *model,
                                                 guint               sample);
/* The linear map from samples: value = sample × @slope + @intercept, where @intercept is the
 * source's intercept − offset × slope. FALSE (and identity) for a Modality LUT Sequence. */
gboolean       lb_value_model_get_rescale       (const LbValueModel *model,
                                                 double             *slope,
                                                 double             *intercept);
/* RescaleSlope and RescaleIntercept as the source stored them (stored-value domain). FALSE
 * unless the kind is %LB_MODALITY_RESCALE. */
gboolean       lb_value_model_get_stored_rescale (const LbValueModel *model,
                                                  double             *slope,
                                                  double             *intercept);
/* (nullable) (transfer none): the Modality LUT Sequence table. */
const LbValueLut *lb_value_model_get_modality_lut (const LbValueModel *model);
/* (nullable): the unit of the real-world values: "HU", or what RescaleType or ModalityLUTType
 * names; NULL when unknown or unspecified (RescaleType "US"). */
const char    *lb_value_model_get_units         (const LbValueModel *model);
/* Digits after the decimal point that real-world values have: 0 for integer rescales, 1 for a
 * slope of 0.5, …; -1 when the slope is no short decimal (PET-like): then values are shown
 * with the significant digits one step of the slope resolves. */
int            lb_value_model_get_decimals      (const LbValueModel *model);
/* @value formatted with the precision the model's values have (see get_decimals). */
char          *lb_value_model_format_value      (const LbValueModel *model,
                                                 double              value);

/* Pixel padding, in samples (the offset applied), inclusive (PS3.3 C.7.5.1.1.2). */
gboolean       lb_value_model_get_padding       (const LbValueModel *model,
                                                 guint              *lo,
                                                 guint              *hi);
gboolean       lb_value_model_is_padding        (const LbValueModel *model,
                                                 guint               sample);

/* VOI: window presets in real-world units, in the file's order. */
guint          lb_value_model_get_n_windows     (const LbValueModel *model);
/* @explanation: (out) (optional) (nullable) (transfer none) WindowCenterWidthExplanation */
gboolean       lb_value_model_get_window        (const LbValueModel *model,
                                                 guint               index,
                                                 double             *center,
                                                 double             *width,
                                                 const char        **explanation);
LbVoiFunction  lb_value_model_get_voi_function  (const LbValueModel *model);
guint          lb_value_model_get_n_voi_luts    (const LbValueModel *model);
const LbValueLut *lb_value_model_get_voi_lut    (const LbValueModel *model,
                                                 guint               index);

/* Presentation: MONOCHROME1, the minimum value is white (PS3.3 C.7.6.3.1.2). */
gboolean       lb_value_model_get_monochrome1   (const LbValueModel *model);
/* The Presentation LUT Shape the source gave, if any. */
LbPresentationShape lb_value_model_get_presentation_shape (const LbValueModel *model);
/* Whether the display inverts the VOI output (the minimum is white): what the Presentation
 * LUT Shape says when the source gave one, INVERSE naming the inversion MONOCHROME1 asks for
 * (PS3.3 C.7.6.1, C.11.6.1.2: the shape defines the Presentation LUT, and the photometric
 * interpretation is not applied again on top of it, as for presentation states, PS3.4
 * N.2.1.4); else MONOCHROME1. */
gboolean       lb_value_model_get_presentation_inverse (const LbValueModel *model);

/* A colour image's model: only the lossy history means anything. */
gboolean       lb_value_model_get_colour        (const LbValueModel *model);

/* The source's pixel representation, for write-back. bits_stored 0: unknown. */
gboolean       lb_value_model_get_source_signed (const LbValueModel *model);
guint          lb_value_model_get_bits_stored   (const LbValueModel *model);
/* The range of stored values the source can hold (BitsStored, signedness); FALSE when
 * BitsStored is unknown. */
gboolean       lb_value_model_get_stored_range  (const LbValueModel *model,
                                                 gint32             *min,
                                                 gint32             *max);

/* Lossy Image Compression (0028,2110) "01" with the Ratio (0028,2112) and Method (0028,2114)
 * values as DICOM multi-values ("10\\5", "ISO_10918_1"), NULL when absent (PS3.3
 * C.7.6.1.1.5). FALSE when the source was never lossy compressed. */
gboolean       lb_value_model_get_lossy         (const LbValueModel *model,
                                                 const char        **ratios,
                                                 const char        **methods);

/* A text form for files that carry the model beside the pixels (the PNG "lightbox:values"
 * chunk): a GVariant a{sv} in text form. The parser fails with %LB_ERROR_PARSE on anything it
 * cannot trust (inconsistent table sizes, padding outside the samples, unknown function). */
char          *lb_value_model_serialize         (const LbValueModel *model);
LbValueModel  *lb_value_model_deserialize       (const char         *text,
                                                 GError            **error);

/* Building. The builder starts from @base (copied) or, when NULL, from the plain model of
 * @sample_bits (identity, no units, no padding, no window, MONOCHROME2, unsigned). */
LbValueModelBuilder *lb_value_model_builder_new (const LbValueModel *base,
                                                 guint               sample_bits);
void           lb_value_model_builder_free      (LbValueModelBuilder *builder);
/* The source's PixelRepresentation and BitsStored. A signed source has the sample offset. */
void           lb_value_model_builder_set_source (LbValueModelBuilder *builder,
                                                  gboolean             is_signed,
                                                  guint                bits_stored);
/* RescaleSlope and RescaleIntercept as stored (stored-value domain). */
void           lb_value_model_builder_set_rescale (LbValueModelBuilder *builder,
                                                   double               slope,
                                                   double               intercept);
/* A Modality LUT Sequence table (copied); replaces any rescale. */
void           lb_value_model_builder_set_modality_lut (LbValueModelBuilder *builder,
                                                        const LbValueLut    *lut);
void           lb_value_model_builder_set_units  (LbValueModelBuilder *builder,
                                                  const char          *units);
/* Padding in samples, inclusive; lo > hi swaps. */
void           lb_value_model_builder_set_padding (LbValueModelBuilder *builder,
                                                   guint                lo,
                                                   guint                hi);
void           lb_value_model_builder_clear_padding (LbValueModelBuilder *builder);
void           lb_value_model_builder_add_window (LbValueModelBuilder *builder,
                                                  double               center,
                                                  double               width,
                                                  const char          *explanation);
void           lb_value_model_builder_clear_windows (LbValueModelBuilder *builder);
void           lb_value_model_builder_set_voi_function (LbValueModelBuilder *builder,
                                                        LbVoiFunction        function);
void           lb_value_model_builder_add_voi_lut (LbValueModelBuilder *builder,
                                                   const LbValueLut    *lut);
void           lb_value_model_builder_clear_voi_luts (LbValueModelBuilder *builder);
void           lb_value_model_builder_set_monochrome1 (LbValueModelBuilder *builder,
                                                       gboolean             monochrome1);
void           lb_value_model_builder_set_presentation_shape (LbValueModelBuilder *builder,
                                                              LbPresentationShape  shape);
/* Marks the model as describing a colour image: everything but the source's BitsStored and
 * the lossy history is reset to the identity. */
void           lb_value_model_builder_set_colour (LbValueModelBuilder *builder,
                                                  gboolean             colour);
void           lb_value_model_builder_set_lossy  (LbValueModelBuilder *builder,
                                                  gboolean             lossy,
                                                  const char          *ratios,
                                                  const char          *methods);
/* Frees @builder and returns the model (transfer full). */
LbValueModel  *lb_value_model_builder_end       (LbValueModelBuilder *builder);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbValueModel, lb_value_model_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbValueModelBuilder, lb_value_model_builder_free)

G_END_DECLS
