package ph.payments.payments.products.domain;

/** Auto-generated SKUs: {@code SKU-} and the number, at least five digits ({@code SKU-00042}). */
public final class Skus {

  public static String of(long number) {
    if (number < 1) {
      throw new IllegalArgumentException("SKU numbers start at 1");
    }
    return String.format("SKU-%05d", number);
  }

  private Skus() {}
}
