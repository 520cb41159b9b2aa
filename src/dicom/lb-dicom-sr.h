/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-dicom-dataset.h"

G_BEGIN_DECLS

/*
 * DICOM Structured Reports without any knowledge of Lightbox's measurements: coded concepts,
 * the content tree (PS3.3 C.17.3, SR Document Content module: each content item an
 * #LbDicomDataset with ValueType, RelationshipType, ConceptNameCodeSequence and its value,
 * children in ContentSequence), the document around it (C.17.1 SR Document Series, C.17.2 SR
 * Document General) for the Comprehensive SR IOD (A.35.3), and the skeleton of TID 1500
 * "Measurement Report" (PS3.16) with its measurement groups. The mapping between
 * LbMeasurement and measurement groups lives in the view layer (lb-measurement-sr.h).
 */

#define LB_DICOM_SOP_CLASS_BASIC_TEXT_SR     "1.2.840.10008.5.1.4.1.1.88.11"
#define LB_DICOM_SOP_CLASS_ENHANCED_SR       "1.2.840.10008.5.1.4.1.1.88.22"
#define LB_DICOM_SOP_CLASS_COMPREHENSIVE_SR  "1.2.840.10008.5.1.4.1.1.88.33"
#define LB_DICOM_SOP_CLASS_COMPREHENSIVE_3D_SR "1.2.840.10008.5.1.4.1.1.88.34"

/* The attributes of the SR modules (PS3.6 keywords). */
#define LB_TAG_CODE_VALUE                  LB_DICOM_TAG (0x0008, 0x0100) /* CodeValue */
#define LB_TAG_CODING_SCHEME_DESIGNATOR    LB_DICOM_TAG (0x0008, 0x0102) /* CodingSchemeDesignator */
#define LB_TAG_CODE_MEANING                LB_DICOM_TAG (0x0008, 0x0104) /* CodeMeaning */
#define LB_TAG_MAPPING_RESOURCE            LB_DICOM_TAG (0x0008, 0x0105) /* MappingResource */
/* ReferencedPerformedProcedureStepSequence */
#define LB_TAG_REFERENCED_PPS_SEQUENCE     LB_DICOM_TAG (0x0008, 0x1111)
#define LB_TAG_REFERENCED_SERIES_SEQUENCE  LB_DICOM_TAG (0x0008, 0x1115) /* ReferencedSeriesSequence */
#define LB_TAG_MEASUREMENT_UNITS_CODE_SEQUENCE LB_DICOM_TAG (0x0040, 0x08EA)
#define LB_TAG_RELATIONSHIP_TYPE           LB_DICOM_TAG (0x0040, 0xA010) /* RelationshipType */
#define LB_TAG_VALUE_TYPE                  LB_DICOM_TAG (0x0040, 0xA040) /* ValueType */
#define LB_TAG_CONCEPT_NAME_CODE_SEQUENCE  LB_DICOM_TAG (0x0040, 0xA043)
#define LB_TAG_CONTINUITY_OF_CONTENT       LB_DICOM_TAG (0x0040, 0xA050) /* ContinuityOfContent */
#define LB_TAG_UID                         LB_DICOM_TAG (0x0040, 0xA124) /* UID */
#define LB_TAG_TEXT_VALUE                  LB_DICOM_TAG (0x0040, 0xA160) /* TextValue */
#define LB_TAG_FLOATING_POINT_VALUE        LB_DICOM_TAG (0x0040, 0xA161) /* FloatingPointValue */
#define LB_TAG_CONCEPT_CODE_SEQUENCE       LB_DICOM_TAG (0x0040, 0xA168) /* ConceptCodeSequence */
#define LB_TAG_MEASURED_VALUE_SEQUENCE     LB_DICOM_TAG (0x0040, 0xA300) /* MeasuredValueSequence */
#define LB_TAG_NUMERIC_VALUE               LB_DICOM_TAG (0x0040, 0xA30A) /* NumericValue */
/* PerformedProcedureCodeSequence */
#define LB_TAG_PERFORMED_PROCEDURE_CODE_SEQUENCE LB_DICOM_TAG (0x0040, 0xA372)
/* CurrentRequestedProcedureEvidenceSequence */
#define LB_TAG_CURRENT_EVIDENCE_SEQUENCE   LB_DICOM_TAG (0x0040, 0xA375)
#define LB_TAG_COMPLETION_FLAG             LB_DICOM_TAG (0x0040, 0xA491) /* CompletionFlag */
#define LB_TAG_VERIFICATION_FLAG           LB_DICOM_TAG (0x0040, 0xA493) /* VerificationFlag */
#define LB_TAG_CONTENT_TEMPLATE_SEQUENCE   LB_DICOM_TAG (0x0040, 0xA504) /* ContentTemplateSequence */
#define LB_TAG_CONTENT_SEQUENCE            LB_DICOM_TAG (0x0040, 0xA730) /* ContentSequence */
#define LB_TAG_TEMPLATE_IDENTIFIER         LB_DICOM_TAG (0x0040, 0xDB00) /* TemplateIdentifier */
#define LB_TAG_GRAPHIC_DATA                LB_DICOM_TAG (0x0070, 0x0022) /* GraphicData */
#define LB_TAG_GRAPHIC_TYPE                LB_DICOM_TAG (0x0070, 0x0023) /* GraphicType */

/**
 * LbDicomCode:
 * @value: CodeValue
 * @scheme: CodingSchemeDesignator ("DCM", "SCT", "UCUM", …)
 * @meaning: CodeMeaning
 *
 * A coded concept (PS3.3 8.8, Code Sequence Macro). Codes compare by value and scheme only
 * (the meaning is for people), with "SRT" and "SCT" taken as the same SNOMED codes where the
 * value is the same.
 */
typedef struct {
  const char *value;
  const char *scheme;
  const char *meaning;
} LbDicomCode;

#define LB_DICOM_CODE(v, s, m) ((LbDicomCode) { (v), (s), (m) })

/* The concepts TID 1500 and its measurement groups name (PS3.16). */
#define LB_CODE_IMAGING_MEASUREMENT_REPORT LB_DICOM_CODE ("126000", "DCM", "Imaging Measurement Report")
#define LB_CODE_LANGUAGE      LB_DICOM_CODE ("121049", "DCM", "Language of Content Item and Descendants")
#define LB_CODE_ENGLISH_US    LB_DICOM_CODE ("en-US", "RFC5646", "English (United States)")
#define LB_CODE_OBSERVER_TYPE LB_DICOM_CODE ("121005", "DCM", "Observer Type")
#define LB_CODE_DEVICE        LB_DICOM_CODE ("121007", "DCM", "Device")
#define LB_CODE_DEVICE_OBSERVER_UID  LB_DICOM_CODE ("121012", "DCM", "Device Observer UID")
#define LB_CODE_DEVICE_OBSERVER_NAME LB_DICOM_CODE ("121013", "DCM", "Device Observer Name")
#define LB_CODE_PROCEDURE_REPORTED   LB_DICOM_CODE ("121058", "DCM", "Procedure reported")
#define LB_CODE_IMAGING_PROCEDURE    LB_DICOM_CODE ("363679005", "SCT", "Imaging procedure")
#define LB_CODE_IMAGE_LIBRARY        LB_DICOM_CODE ("111028", "DCM", "Image Library")
#define LB_CODE_IMAGE_LIBRARY_GROUP  LB_DICOM_CODE ("126200", "DCM", "Image Library Group")
#define LB_CODE_IMAGING_MEASUREMENTS LB_DICOM_CODE ("126010", "DCM", "Imaging Measurements")
#define LB_CODE_MEASUREMENT_GROUP    LB_DICOM_CODE ("125007", "DCM", "Measurement Group")
#define LB_CODE_TRACKING_IDENTIFIER  LB_DICOM_CODE ("112039", "DCM", "Tracking Identifier")
#define LB_CODE_TRACKING_UID         LB_DICOM_CODE ("112040", "DCM", "Tracking Unique Identifier")
#define LB_CODE_IMAGE_REGION         LB_DICOM_CODE ("111030", "DCM", "Image Region")
#define LB_CODE_COMMENT              LB_DICOM_CODE ("121106", "DCM", "Comment")
#define LB_CODE_DERIVATION           LB_DICOM_CODE ("121401", "DCM", "Derivation")
#define LB_CODE_LENGTH               LB_DICOM_CODE ("410668003", "SCT", "Length")
#define LB_CODE_AREA                 LB_DICOM_CODE ("42798000", "SCT", "Area")
#define LB_CODE_ANGLE                LB_DICOM_CODE ("1483009", "SCT", "Angle")
#define LB_CODE_MEAN                 LB_DICOM_CODE ("373098007", "SCT", "Mean")
#define LB_CODE_STANDARD_DEVIATION   LB_DICOM_CODE ("386136009", "SCT", "Standard Deviation")
#define LB_CODE_MINIMUM              LB_DICOM_CODE ("255605001", "SCT", "Minimum")
#define LB_CODE_MAXIMUM              LB_DICOM_CODE ("56851009", "SCT", "Maximum")
#define LB_CODE_ATTENUATION_COEFFICIENT LB_DICOM_CODE ("112031", "DCM", "Attenuation Coefficient")
/* UCUM units (PS3.16 CID 7181 and friends) */
#define LB_CODE_UNIT_MM      LB_DICOM_CODE ("mm", "UCUM", "millimeter")
#define LB_CODE_UNIT_MM2     LB_DICOM_CODE ("mm2", "UCUM", "square millimeter")
#define LB_CODE_UNIT_DEGREE  LB_DICOM_CODE ("deg", "UCUM", "degree")
#define LB_CODE_UNIT_HU      LB_DICOM_CODE ("[hnsf'U]", "UCUM", "Hounsfield unit")
#define LB_CODE_UNIT_NONE    LB_DICOM_CODE ("1", "UCUM", "no units")
/* UCUM has no pixel; an annotation ({…}) is a valid UCUM unit of dimension one. */
#define LB_CODE_UNIT_PIXEL   LB_DICOM_CODE ("{px}", "UCUM", "pixel")
#define LB_CODE_UNIT_PIXEL2  LB_DICOM_CODE ("{px2}", "UCUM", "square pixel")

gboolean        lb_dicom_code_equal        (LbDicomCode           a,
                                            LbDicomCode           b);
/* A Code Sequence Macro item. */
LbDicomDataset *lb_dicom_code_item_new     (LbDicomCode           code);
/* The first item of code sequence @tag in @ds; FALSE (and @code zeroed) when there is none or
 * it lacks CodeValue or CodingSchemeDesignator. The strings belong to @ds. */
gboolean        lb_dicom_dataset_get_code  (const LbDicomDataset *ds,
                                            guint32               tag,
                                            LbDicomCode          *code);

/* ---- content items (PS3.3 C.17.3, C.18) --------------------------------------------------- */

/* @relationship (NULL for the root): "CONTAINS", "HAS OBS CONTEXT", "HAS CONCEPT MOD",
 * "INFERRED FROM", "SELECTED FROM", "HAS PROPERTIES". @concept NULL: no concept name (allowed
 * below INFERRED FROM and SELECTED FROM). */
LbDicomDataset *lb_dicom_sr_container_new (const char        *relationship,
                                           const LbDicomCode *concept);
LbDicomDataset *lb_dicom_sr_code_new      (const char        *relationship,
                                           const LbDicomCode *concept,
                                           LbDicomCode        value);
LbDicomDataset *lb_dicom_sr_text_new      (const char        *relationship,
                                           const LbDicomCode *concept,
                                           const char        *text);
LbDicomDataset *lb_dicom_sr_uidref_new    (const char        *relationship,
                                           const LbDicomCode *concept,
                                           const char        *uid);
/* A NUM item (C.18.1): NumericValue as DS (16 characters) and, since that rounds, the exact
 * double in FloatingPointValue. @value must be finite. */
LbDicomDataset *lb_dicom_sr_num_new       (const char        *relationship,
                                           const LbDicomCode *concept,
                                           double             value,
                                           LbDicomCode        unit);
/* A SCOORD item (C.18.6): @graphic_type "POINT", "MULTIPOINT", "POLYLINE", "CIRCLE" or
 * "ELLIPSE"; @xy holds @n_points (column, row) pairs in the image's pixel coordinates, where
 * the top left corner of the top left pixel is (0, 0) and the bottom right corner of the
 * bottom right pixel is (Columns, Rows) (C.18.6.1.2), stored as FL (single precision). */
LbDicomDataset *lb_dicom_sr_scoord_new    (const char        *relationship,
                                           const LbDicomCode *concept,
                                           const char        *graphic_type,
                                           const double      *xy,
                                           guint              n_points);
/* An IMAGE item (C.18.4): @frame_number from 1, 0 for none (single-frame images). */
LbDicomDataset *lb_dicom_sr_image_new     (const char        *relationship,
                                           const LbDicomCode *concept,
                                           const char        *sop_class_uid,
                                           const char        *sop_instance_uid,
                                           guint              frame_number);
/* Appends @child (a reference is taken) to @parent's ContentSequence; returns @child. */
LbDicomDataset *lb_dicom_sr_add           (LbDicomDataset    *parent,
                                           LbDicomDataset    *child);
/* Appends @child and drops the caller's reference (for builders: add (p, new (…))). */
void            lb_dicom_sr_take          (LbDicomDataset    *parent,
                                           LbDicomDataset    *child);

/* Reading: the item's ValueType and RelationshipType (NULL when absent). */
const char     *lb_dicom_sr_get_value_type   (const LbDicomDataset *item);
const char     *lb_dicom_sr_get_relationship (const LbDicomDataset *item);
/* TRUE when the item's concept name is @concept. */
gboolean        lb_dicom_sr_has_concept      (const LbDicomDataset *item,
                                              LbDicomCode           concept);
guint           lb_dicom_sr_get_n_children   (const LbDicomDataset *item);
LbDicomDataset *lb_dicom_sr_get_child        (const LbDicomDataset *item,
                                              guint                 index);
/* The first child with @concept (and, when not NULL, @value_type); NULL when none. */
LbDicomDataset *lb_dicom_sr_find_child       (const LbDicomDataset *item,
                                              LbDicomCode           concept,
                                              const char           *value_type);
/* NUM: the value (FloatingPointValue when present, else NumericValue) and its unit. */
gboolean        lb_dicom_sr_get_num          (const LbDicomDataset *item,
                                              double               *value,
                                              LbDicomCode          *unit);
/* SCOORD: the graphic type and the points (transfer full, 2 × *n_points doubles). FALSE with
 * %LB_ERROR_PARSE when GraphicData is missing, odd in length, not numbers, or the count does
 * not suit the type (POINT 1, CIRCLE 2, ELLIPSE 4, POLYLINE and MULTIPOINT at least 1). */
double         *lb_dicom_sr_get_scoord       (const LbDicomDataset *item,
                                              const char          **graphic_type,
                                              guint                *n_points,
                                              GError              **error);
/* IMAGE: the referenced instance and frame (from 1; 0 when none is named); FALSE without a
 * ReferencedSOPSequence item holding ReferencedSOPInstanceUID. */
gboolean        lb_dicom_sr_get_image        (const LbDicomDataset *item,
                                              const char          **sop_class_uid,
                                              const char          **sop_instance_uid,
                                              guint                *frame_number);

/* ---- the document (Comprehensive SR IOD, PS3.3 A.35.3) ----------------------------------- */

/**
 * lb_dicom_sr_document_new:
 * @study: a data set of the study the report belongs to (one of the source instances): the
 *   Patient and General Study modules are copied from it; it must hold StudyInstanceUID
 * @root: the root CONTAINER (its concept and template are the document's title)
 * @evidence: (element-type LbDicomDataset): the instances the report references, each with
 *   StudyInstanceUID, SeriesInstanceUID, SOPClassUID and SOPInstanceUID; listed in
 *   CurrentRequestedProcedureEvidenceSequence (C.17.2.3), grouped by study and series
 * @series_number: SeriesNumber of the report's series
 * @series_description: (nullable): SeriesDescription
 *
 * A Comprehensive SR instance in a NEW series (fresh SeriesInstanceUID and SOPInstanceUID,
 * Modality SR) of @study's study: Patient, General Study, SR Document Series, General
 * Equipment (Manufacturer Lightbox), SR Document General (CompletionFlag PARTIAL — a reader
 * may add to it in a new report —, VerificationFlag UNVERIFIED, ContentDate and ContentTime
 * now), SR Document Content (@root's items) and SOP Common (ISO_IR 192). @root is copied in,
 * not kept. Fails with %LB_ERROR_INVALID_ARGUMENT when @study has no StudyInstanceUID or an
 * evidence instance lacks one of its UIDs or belongs to another study.
 */
LbDicomDataset *lb_dicom_sr_document_new (const LbDicomDataset *study,
                                          const LbDicomDataset *root,
                                          GPtrArray            *evidence,
                                          guint                 series_number,
                                          const char           *series_description,
                                          GError              **error);

/* TRUE when @ds is an instance of one of the SR storage classes above. */
gboolean        lb_dicom_sr_is_sr        (const LbDicomDataset *ds);

/* ---- TID 1500 Measurement Report (PS3.16) ------------------------------------------------- */

/**
 * lb_dicom_tid1500_new:
 * @evidence: (element-type LbDicomDataset): the measured instances, as for
 *   lb_dicom_sr_document_new(); each goes into the Image Library (TID 1600) as an IMAGE item
 * @frames: (nullable) (element-type guint): for each @evidence item, the frame number measured
 *   (from 1), or 0 for a single-frame image
 * @observer_uid: the Device Observer UID (TID 1004); the device observer is named "Lightbox"
 *
 * The root CONTAINER "Imaging Measurement Report" (template 1500, DCMR) with the language
 * (TID 1204, en-US), the observation context (TID 1001 → TID 1002/1004: observer type device),
 * "Procedure reported" (imaging procedure), the Image Library and an empty "Imaging
 * Measurements" container, which lb_dicom_tid1500_add_group() fills.
 */
LbDicomDataset *lb_dicom_tid1500_new       (GPtrArray            *evidence,
                                            GArray               *frames,
                                            const char           *observer_uid);
/* A new Measurement Group (TID 1501 / TID 1410) in the report's Imaging Measurements, with its
 * Tracking Identifier (text) and Tracking Unique Identifier; (transfer none): owned by @report. */
LbDicomDataset *lb_dicom_tid1500_add_group (LbDicomDataset       *report,
                                            const char           *tracking_id,
                                            const char           *tracking_uid);
/* The Measurement Group containers of a Measurement Report (the document or its root): every
 * CONTAINER "Measurement Group" in "Imaging Measurements", in order (transfer container,
 * element-type LbDicomDataset, items owned by @sr). Empty when @sr is no TID 1500 report. */
GPtrArray      *lb_dicom_tid1500_get_groups (const LbDicomDataset *sr);

G_END_DECLS
