/**
 * EMVCo Merchant-Presented Mode QR payloads and the QR Ph (Philippines) dynamic person-to-merchant
 * profile on top of them.
 *
 * <p>Plain Java on purpose: the codec is pure string work that the payment use cases, a provider
 * adapter and a test can all call without a Micronaut context or a database. {@link
 * ph.payments.payments.qr.EmvMpmCodec} knows the generic EMVCo rules (TLV layout, templates, CRC);
 * {@link ph.payments.payments.qr.QrPhPayload} knows what QR Ph adds (tag 28, currency 608, country
 * PH) and how we mark test-mode payloads so that no bank app can pay them.
 */
package ph.payments.payments.qr;
