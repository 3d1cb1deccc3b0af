package ph.payments.payments.payments.domain;

/** Why a payment (or refund, payout) failed: a stable code and a message for people. */
public record Failure(String code, String message) {}
