/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-dicom-dataset.h"

G_BEGIN_DECLS

/* The DICOM attributes the store code names, in tag order, each with its keyword from the data
 * dictionary (PS3.6 §6; the group 0002 file meta elements: PS3.10 §7.1). A name is its keyword
 * in capitals, except where a shorter one reads as well (PHOTOMETRIC, REFERRING_PHYSICIAN,
 * FILE_META_, SC_ for SecondaryCapture, NUMBER_OF_*_INSTANCES). */

/* FileMetaInformationGroupLength */
#define LB_TAG_FILE_META_GROUP_LENGTH  LB_DICOM_TAG (0x0002, 0x0000)
/* FileMetaInformationVersion */
#define LB_TAG_FILE_META_VERSION       LB_DICOM_TAG (0x0002, 0x0001)
/* MediaStorageSOPClassUID */
#define LB_TAG_MEDIA_STORAGE_SOP_CLASS_UID LB_DICOM_TAG (0x0002, 0x0002)
/* MediaStorageSOPInstanceUID */
#define LB_TAG_MEDIA_STORAGE_SOP_INSTANCE_UID LB_DICOM_TAG (0x0002, 0x0003)
#define LB_TAG_TRANSFER_SYNTAX_UID     LB_DICOM_TAG (0x0002, 0x0010) /* TransferSyntaxUID */
#define LB_TAG_IMPLEMENTATION_CLASS_UID LB_DICOM_TAG (0x0002, 0x0012) /* ImplementationClassUID */
/* ImplementationVersionName */
#define LB_TAG_IMPLEMENTATION_VERSION_NAME LB_DICOM_TAG (0x0002, 0x0013)

/* OffsetOfTheFirstDirectoryRecordOfTheRootDirectoryEntity (DICOMDIR, PS3.3 F.3) */
#define LB_TAG_ROOT_FIRST_RECORD_OFFSET LB_DICOM_TAG (0x0004, 0x1200)
#define LB_TAG_DIRECTORY_RECORD_SEQUENCE LB_DICOM_TAG (0x0004, 0x1220) /* DirectoryRecordSequence */
/* OffsetOfTheNextDirectoryRecord */
#define LB_TAG_NEXT_RECORD_OFFSET      LB_DICOM_TAG (0x0004, 0x1400)
#define LB_TAG_RECORD_IN_USE_FLAG      LB_DICOM_TAG (0x0004, 0x1410) /* RecordInUseFlag */
/* OffsetOfReferencedLowerLevelDirectoryEntity */
#define LB_TAG_LOWER_LEVEL_OFFSET      LB_DICOM_TAG (0x0004, 0x1420)
#define LB_TAG_DIRECTORY_RECORD_TYPE   LB_DICOM_TAG (0x0004, 0x1430) /* DirectoryRecordType */
#define LB_TAG_REFERENCED_FILE_ID      LB_DICOM_TAG (0x0004, 0x1500) /* ReferencedFileID */
/* ReferencedSOPClassUIDInFile */
#define LB_TAG_REFERENCED_SOP_CLASS_UID_IN_FILE LB_DICOM_TAG (0x0004, 0x1510)
/* ReferencedSOPInstanceUIDInFile */
#define LB_TAG_REFERENCED_SOP_INSTANCE_UID_IN_FILE LB_DICOM_TAG (0x0004, 0x1511)
/* ReferencedTransferSyntaxUIDInFile */
#define LB_TAG_REFERENCED_TRANSFER_SYNTAX_UID_IN_FILE LB_DICOM_TAG (0x0004, 0x1512)

#define LB_TAG_SPECIFIC_CHARACTER_SET  LB_DICOM_TAG (0x0008, 0x0005) /* SpecificCharacterSet */
#define LB_TAG_IMAGE_TYPE              LB_DICOM_TAG (0x0008, 0x0008) /* ImageType */
#define LB_TAG_INSTANCE_CREATION_DATE  LB_DICOM_TAG (0x0008, 0x0012) /* InstanceCreationDate */
#define LB_TAG_INSTANCE_CREATION_TIME  LB_DICOM_TAG (0x0008, 0x0013) /* InstanceCreationTime */
#define LB_TAG_SOP_CLASS_UID           LB_DICOM_TAG (0x0008, 0x0016) /* SOPClassUID */
#define LB_TAG_SOP_INSTANCE_UID        LB_DICOM_TAG (0x0008, 0x0018) /* SOPInstanceUID */
#define LB_TAG_STUDY_DATE              LB_DICOM_TAG (0x0008, 0x0020) /* StudyDate */
#define LB_TAG_SERIES_DATE             LB_DICOM_TAG (0x0008, 0x0021) /* SeriesDate */
#define LB_TAG_CONTENT_DATE            LB_DICOM_TAG (0x0008, 0x0023) /* ContentDate */
#define LB_TAG_STUDY_TIME              LB_DICOM_TAG (0x0008, 0x0030) /* StudyTime */
#define LB_TAG_SERIES_TIME             LB_DICOM_TAG (0x0008, 0x0031) /* SeriesTime */
#define LB_TAG_CONTENT_TIME            LB_DICOM_TAG (0x0008, 0x0033) /* ContentTime */
#define LB_TAG_ACCESSION_NUMBER        LB_DICOM_TAG (0x0008, 0x0050) /* AccessionNumber */
#define LB_TAG_MODALITY                LB_DICOM_TAG (0x0008, 0x0060) /* Modality */
#define LB_TAG_MODALITIES_IN_STUDY     LB_DICOM_TAG (0x0008, 0x0061) /* ModalitiesInStudy */
#define LB_TAG_CONVERSION_TYPE         LB_DICOM_TAG (0x0008, 0x0064) /* ConversionType */
#define LB_TAG_MANUFACTURER            LB_DICOM_TAG (0x0008, 0x0070) /* Manufacturer */
#define LB_TAG_REFERRING_PHYSICIAN     LB_DICOM_TAG (0x0008, 0x0090) /* ReferringPhysicianName */
#define LB_TAG_STUDY_DESCRIPTION       LB_DICOM_TAG (0x0008, 0x1030) /* StudyDescription */
#define LB_TAG_SERIES_DESCRIPTION      LB_DICOM_TAG (0x0008, 0x103E) /* SeriesDescription */
#define LB_TAG_REFERENCED_SOP_CLASS_UID LB_DICOM_TAG (0x0008, 0x1150) /* ReferencedSOPClassUID */
/* ReferencedSOPInstanceUID */
#define LB_TAG_REFERENCED_SOP_INSTANCE_UID LB_DICOM_TAG (0x0008, 0x1155)
/* ReferencedFrameNumber */
#define LB_TAG_REFERENCED_FRAME_NUMBER LB_DICOM_TAG (0x0008, 0x1160)
#define LB_TAG_RETRIEVE_URL            LB_DICOM_TAG (0x0008, 0x1190) /* RetrieveURL */
#define LB_TAG_FAILURE_REASON          LB_DICOM_TAG (0x0008, 0x1197) /* FailureReason */
#define LB_TAG_FAILED_SOP_SEQUENCE     LB_DICOM_TAG (0x0008, 0x1198) /* FailedSOPSequence */
#define LB_TAG_REFERENCED_SOP_SEQUENCE LB_DICOM_TAG (0x0008, 0x1199) /* ReferencedSOPSequence */
#define LB_TAG_DERIVATION_DESCRIPTION  LB_DICOM_TAG (0x0008, 0x2111) /* DerivationDescription */
/* RecommendedDisplayFrameRate */
#define LB_TAG_RECOMMENDED_DISPLAY_FRAME_RATE LB_DICOM_TAG (0x0008, 0x2144)
#define LB_TAG_SOURCE_IMAGE_SEQUENCE   LB_DICOM_TAG (0x0008, 0x2112) /* SourceImageSequence */

#define LB_TAG_PATIENT_NAME            LB_DICOM_TAG (0x0010, 0x0010) /* PatientName */
#define LB_TAG_PATIENT_ID              LB_DICOM_TAG (0x0010, 0x0020) /* PatientID */
#define LB_TAG_PATIENT_BIRTH_DATE      LB_DICOM_TAG (0x0010, 0x0030) /* PatientBirthDate */
#define LB_TAG_PATIENT_SEX             LB_DICOM_TAG (0x0010, 0x0040) /* PatientSex */
#define LB_TAG_PATIENT_AGE             LB_DICOM_TAG (0x0010, 0x1010) /* PatientAge */

#define LB_TAG_CINE_RATE               LB_DICOM_TAG (0x0018, 0x0040) /* CineRate */
#define LB_TAG_SLICE_THICKNESS         LB_DICOM_TAG (0x0018, 0x0050) /* SliceThickness */
/* SecondaryCaptureDeviceManufacturer */
#define LB_TAG_SC_DEVICE_MANUFACTURER  LB_DICOM_TAG (0x0018, 0x1016)
/* SecondaryCaptureDeviceSoftwareVersions */
#define LB_TAG_SC_DEVICE_SOFTWARE_VERSIONS LB_DICOM_TAG (0x0018, 0x1019)
#define LB_TAG_FRAME_TIME              LB_DICOM_TAG (0x0018, 0x1063) /* FrameTime */
#define LB_TAG_IMAGER_PIXEL_SPACING    LB_DICOM_TAG (0x0018, 0x1164) /* ImagerPixelSpacing */

#define LB_TAG_STUDY_INSTANCE_UID      LB_DICOM_TAG (0x0020, 0x000D) /* StudyInstanceUID */
#define LB_TAG_SERIES_INSTANCE_UID     LB_DICOM_TAG (0x0020, 0x000E) /* SeriesInstanceUID */
#define LB_TAG_STUDY_ID                LB_DICOM_TAG (0x0020, 0x0010) /* StudyID */
#define LB_TAG_SERIES_NUMBER           LB_DICOM_TAG (0x0020, 0x0011) /* SeriesNumber */
#define LB_TAG_INSTANCE_NUMBER         LB_DICOM_TAG (0x0020, 0x0013) /* InstanceNumber */
/* ImagePositionPatient */
#define LB_TAG_IMAGE_POSITION_PATIENT  LB_DICOM_TAG (0x0020, 0x0032)
/* ImageOrientationPatient */
#define LB_TAG_IMAGE_ORIENTATION_PATIENT LB_DICOM_TAG (0x0020, 0x0037)
#define LB_TAG_PATIENT_ORIENTATION     LB_DICOM_TAG (0x0020, 0x0020) /* PatientOrientation */
#define LB_TAG_LATERALITY              LB_DICOM_TAG (0x0020, 0x0060) /* Laterality */
#define LB_TAG_FRAME_OF_REFERENCE_UID LB_DICOM_TAG (0x0020, 0x0052) /* FrameOfReferenceUID */
/* NumberOfStudyRelatedInstances */
#define LB_TAG_NUMBER_OF_STUDY_INSTANCES LB_DICOM_TAG (0x0020, 0x1208)
/* NumberOfSeriesRelatedInstances */
#define LB_TAG_NUMBER_OF_SERIES_INSTANCES LB_DICOM_TAG (0x0020, 0x1209)
#define LB_TAG_SLICE_LOCATION          LB_DICOM_TAG (0x0020, 0x1041) /* SliceLocation */
/* PlanePositionSequence, PlaneOrientationSequence (functional groups, PS3.3 C.7.6.16.2.3-4) */
#define LB_TAG_PLANE_POSITION_SEQUENCE LB_DICOM_TAG (0x0020, 0x9113)
#define LB_TAG_PLANE_ORIENTATION_SEQUENCE LB_DICOM_TAG (0x0020, 0x9116)

#define LB_TAG_SAMPLES_PER_PIXEL       LB_DICOM_TAG (0x0028, 0x0002) /* SamplesPerPixel */
#define LB_TAG_PHOTOMETRIC             LB_DICOM_TAG (0x0028, 0x0004) /* PhotometricInterpretation */
#define LB_TAG_PLANAR_CONFIGURATION    LB_DICOM_TAG (0x0028, 0x0006) /* PlanarConfiguration */
#define LB_TAG_NUMBER_OF_FRAMES        LB_DICOM_TAG (0x0028, 0x0008) /* NumberOfFrames */
#define LB_TAG_ROWS                    LB_DICOM_TAG (0x0028, 0x0010) /* Rows */
#define LB_TAG_COLUMNS                 LB_DICOM_TAG (0x0028, 0x0011) /* Columns */
#define LB_TAG_PIXEL_SPACING           LB_DICOM_TAG (0x0028, 0x0030) /* PixelSpacing */
#define LB_TAG_BITS_ALLOCATED          LB_DICOM_TAG (0x0028, 0x0100) /* BitsAllocated */
#define LB_TAG_BITS_STORED             LB_DICOM_TAG (0x0028, 0x0101) /* BitsStored */
#define LB_TAG_HIGH_BIT                LB_DICOM_TAG (0x0028, 0x0102) /* HighBit */
#define LB_TAG_PIXEL_REPRESENTATION    LB_DICOM_TAG (0x0028, 0x0103) /* PixelRepresentation */
#define LB_TAG_PIXEL_PADDING_VALUE     LB_DICOM_TAG (0x0028, 0x0120) /* PixelPaddingValue */
/* PixelPaddingRangeLimit */
#define LB_TAG_PIXEL_PADDING_RANGE_LIMIT LB_DICOM_TAG (0x0028, 0x0121)
#define LB_TAG_WINDOW_CENTER           LB_DICOM_TAG (0x0028, 0x1050) /* WindowCenter */
#define LB_TAG_WINDOW_WIDTH            LB_DICOM_TAG (0x0028, 0x1051) /* WindowWidth */
#define LB_TAG_RESCALE_INTERCEPT       LB_DICOM_TAG (0x0028, 0x1052) /* RescaleIntercept */
#define LB_TAG_RESCALE_SLOPE           LB_DICOM_TAG (0x0028, 0x1053) /* RescaleSlope */
#define LB_TAG_RESCALE_TYPE            LB_DICOM_TAG (0x0028, 0x1054) /* RescaleType */
/* WindowCenterWidthExplanation */
#define LB_TAG_WINDOW_EXPLANATION      LB_DICOM_TAG (0x0028, 0x1055)
#define LB_TAG_VOI_LUT_FUNCTION        LB_DICOM_TAG (0x0028, 0x1056) /* VOILUTFunction */
/* Red/Green/BluePaletteColorLookupTableDescriptor, …Data, Segmented…Data (PS3.3 C.7.6.3.1.5-6) */
#define LB_TAG_RED_PALETTE_DESCRIPTOR  LB_DICOM_TAG (0x0028, 0x1101)
#define LB_TAG_GREEN_PALETTE_DESCRIPTOR LB_DICOM_TAG (0x0028, 0x1102)
#define LB_TAG_BLUE_PALETTE_DESCRIPTOR LB_DICOM_TAG (0x0028, 0x1103)
#define LB_TAG_RED_PALETTE_DATA        LB_DICOM_TAG (0x0028, 0x1201)
#define LB_TAG_GREEN_PALETTE_DATA      LB_DICOM_TAG (0x0028, 0x1202)
#define LB_TAG_BLUE_PALETTE_DATA       LB_DICOM_TAG (0x0028, 0x1203)
#define LB_TAG_SEGMENTED_RED_PALETTE_DATA LB_DICOM_TAG (0x0028, 0x1221)
#define LB_TAG_SEGMENTED_GREEN_PALETTE_DATA LB_DICOM_TAG (0x0028, 0x1222)
#define LB_TAG_SEGMENTED_BLUE_PALETTE_DATA LB_DICOM_TAG (0x0028, 0x1223)
/* LossyImageCompression */
#define LB_TAG_LOSSY_IMAGE_COMPRESSION LB_DICOM_TAG (0x0028, 0x2110)
/* LossyImageCompressionRatio */
#define LB_TAG_LOSSY_IMAGE_COMPRESSION_RATIO LB_DICOM_TAG (0x0028, 0x2112)
/* LossyImageCompressionMethod */
#define LB_TAG_LOSSY_IMAGE_COMPRESSION_METHOD LB_DICOM_TAG (0x0028, 0x2114)
#define LB_TAG_MODALITY_LUT_SEQUENCE   LB_DICOM_TAG (0x0028, 0x3000) /* ModalityLUTSequence */
#define LB_TAG_LUT_DESCRIPTOR          LB_DICOM_TAG (0x0028, 0x3002) /* LUTDescriptor */
#define LB_TAG_LUT_EXPLANATION         LB_DICOM_TAG (0x0028, 0x3003) /* LUTExplanation */
#define LB_TAG_MODALITY_LUT_TYPE       LB_DICOM_TAG (0x0028, 0x3004) /* ModalityLUTType */
#define LB_TAG_LUT_DATA                LB_DICOM_TAG (0x0028, 0x3006) /* LUTData */
#define LB_TAG_VOI_LUT_SEQUENCE        LB_DICOM_TAG (0x0028, 0x3010) /* VOILUTSequence */
#define LB_TAG_PIXEL_MEASURES_SEQUENCE LB_DICOM_TAG (0x0028, 0x9110) /* PixelMeasuresSequence */
#define LB_TAG_FRAME_VOI_LUT_SEQUENCE  LB_DICOM_TAG (0x0028, 0x9132) /* FrameVOILUTSequence */
/* PixelValueTransformationSequence */
#define LB_TAG_PIXEL_VALUE_TRANSFORMATION_SEQUENCE LB_DICOM_TAG (0x0028, 0x9145)
#define LB_TAG_PRESENTATION_LUT_SHAPE  LB_DICOM_TAG (0x2050, 0x0020) /* PresentationLUTShape */

/* SharedFunctionalGroupsSequence */
#define LB_TAG_SHARED_FUNCTIONAL_GROUPS_SEQUENCE LB_DICOM_TAG (0x5200, 0x9229)
/* PerFrameFunctionalGroupsSequence */
#define LB_TAG_PER_FRAME_FUNCTIONAL_GROUPS_SEQUENCE LB_DICOM_TAG (0x5200, 0x9230)

#define LB_TAG_EXTENDED_OFFSET_TABLE   LB_DICOM_TAG (0x7FE0, 0x0001) /* ExtendedOffsetTable */
/* ExtendedOffsetTableLengths */
#define LB_TAG_EXTENDED_OFFSET_TABLE_LENGTHS LB_DICOM_TAG (0x7FE0, 0x0002)
#define LB_TAG_PIXEL_DATA              LB_DICOM_TAG (0x7FE0, 0x0010) /* PixelData */

G_END_DECLS
