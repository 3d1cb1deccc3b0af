package ph.payments.payments.qr;

/**
 * Why a QR payload was refused. Decoding is strict on purpose: a payload we cannot read exactly is
 * one we must not show to a payer or trust from a provider, so every deviation gets a reason
 * instead of a best-effort guess.
 */
public enum QrRejection {
  /** The payload is null or empty. */
  EMPTY,
  /** More than 512 characters, the EMVCo limit for a merchant-presented payload. */
  TOO_LONG,
  /** A data object's id, length or value runs past the end of the payload or of its template. */
  TRUNCATED,
  /** A data object id is not two ASCII digits. */
  NON_DIGIT_ID,
  /** A data object length is not two ASCII digits. */
  NON_DIGIT_LENGTH,
  /** A data object declares length 00; EMVCo values have 1 to 99 characters. */
  EMPTY_VALUE,
  /** The same id appears twice at one level (top level or inside one template). */
  DUPLICATE_TAG,
  /** A tag the specification requires is absent (EMVCo: 00, 52, 53, 58, 59, 60, 63). */
  MISSING_MANDATORY_TAG,
  /** Tag 00 is not the first data object, or tag 63 is not the last. */
  MISPLACED_TAG,
  /** A tag with a fixed value or format has another one (for example 00 other than "01"). */
  INVALID_VALUE,
  /** Tag 63 does not match the CRC-16/CCITT-FALSE of the payload up to and including "6304". */
  CRC_MISMATCH,
  /** A well-formed EMVCo payload that is not a QR Ph person-to-merchant payload. */
  NOT_QR_PH_P2M,
  /** A QR Ph payload that is not dynamic (point of initiation 12 with an amount). */
  NOT_DYNAMIC
}
