package ph.payments.payments.customers.domain;

/** A customer's postal address; every part may be null ({@code country} only after an update). */
public record Address(
    String line1, String line2, String city, String region, String postalCode, String country) {

  /** The country of an address given without one (SPEC part 2). */
  public static final String DEFAULT_COUNTRY = "PH";
}
