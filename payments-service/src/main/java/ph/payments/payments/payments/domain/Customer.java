package ph.payments.payments.payments.domain;

/** The payer as the merchant described them; both parts may be null. */
public record Customer(String email, String name) {}
