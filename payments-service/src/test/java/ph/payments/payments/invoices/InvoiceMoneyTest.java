package ph.payments.payments.invoices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import ph.payments.payments.invoices.domain.Invoice;
import ph.payments.payments.invoices.domain.InvoiceKind;
import ph.payments.payments.invoices.domain.InvoiceMoney;
import ph.payments.payments.invoices.domain.InvoiceStatus;
import ph.payments.payments.invoices.domain.InvoiceTokens;
import ph.payments.payments.invoices.domain.LineItem;
import ph.payments.platform.errors.ErrorCode;

/**
 * The money rules over random invoices (jqwik is not on the classpath: a seeded random loop, the
 * seed in every message so a failure replays): line amounts, subtotal and amount to the centavo;
 * the deposit; and over random payments and refunds, paid + remaining = amount at every step, the
 * status following the money, and a two-stage invoice taking its deposit first.
 */
class InvoiceMoneyTest {

  private static final BigDecimal CENTAVO = new BigDecimal("0.01");
  private static final BigDecimal HALF_CENTAVO = new BigDecimal("0.005");

  @Test
  void theRoundingRuleIsHalfUpOnceOnTheExactProduct() {
    assertEquals(new BigDecimal("66.67"), InvoiceMoney.lineAmount(bd("2"), bd("33.335")));
    assertEquals(new BigDecimal("0.01"), InvoiceMoney.lineAmount(bd("0.5"), bd("0.01")));
    assertEquals(new BigDecimal("0.00"), InvoiceMoney.lineAmount(bd("0.4999"), bd("0.01")));
    assertEquals(new BigDecimal("3.33"), InvoiceMoney.lineAmount(bd("0.3333"), bd("10")));
    assertEquals(new BigDecimal("150.00"), InvoiceMoney.deposit(bd("300.00"), bd("0.5")));
    assertEquals(new BigDecimal("0.02"), InvoiceMoney.deposit(bd("0.03"), bd("0.5")));
  }

  @Test
  void totalsAddUpToTheCentavo() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int run = 0; run < 2_000; run++) {
      List<LineItem> lines = lines(random);
      BigDecimal exactSum = BigDecimal.ZERO;
      for (LineItem line : lines) {
        assertEquals(2, line.amount().scale());
        exactSum = exactSum.add(line.amount());
      }
      BigDecimal discount = money(random, exactSum.add(bd("5")));
      BigDecimal tax = money(random, bd("5000"));
      Optional<InvoiceMoney.Totals> totals = InvoiceMoney.totals(lines, discount, tax);
      String at = "seed " + seed + " run " + run;
      if (discount.compareTo(exactSum) > 0) {
        assertTrue(totals.isEmpty(), at + ": a discount above the subtotal is refused");
        continue;
      }
      assertEquals(exactSum.setScale(2), totals.get().subtotal(), at);
      assertEquals(exactSum.subtract(discount).add(tax).setScale(2), totals.get().amount(), at);
      assertTrue(totals.get().amount().signum() >= 0, at);
      BigDecimal rate = rate(random);
      BigDecimal deposit = InvoiceMoney.deposit(totals.get().amount(), rate);
      assertEquals(2, deposit.scale());
      assertTrue(
          deposit.subtract(totals.get().amount().multiply(rate)).abs().compareTo(HALF_CENTAVO) <= 0,
          at);
    }
  }

  @Test
  void paidPlusRemainingIsTheAmountThroughRandomPaymentsAndRefunds() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    Instant now = Instant.parse("2026-11-25T00:00:00Z");
    for (int run = 0; run < 1_000; run++) {
      String at = "seed " + seed + " run " + run;
      List<LineItem> lines = lines(random);
      InvoiceMoney.Totals totals =
          InvoiceMoney.totals(lines, BigDecimal.ZERO.setScale(2), money(random, bd("100")))
              .orElseThrow();
      if (totals.amount().compareTo(bd("0.02")) < 0) {
        continue;
      }
      BigDecimal rate = random.nextBoolean() ? rate(random) : null;
      if (rate != null && !InvoiceMoney.twoStagesPossible(totals.amount(), rate)) {
        rate = null;
      }
      boolean partial = random.nextBoolean();
      Invoice v = invoice(lines, totals, rate, partial).sent("INV-2026-0001", now);
      List<BigDecimal> payments = new ArrayList<>();
      int steps = 0;
      while (v.status() != InvoiceStatus.PAID && steps++ < 200) {
        BigDecimal asked =
            partial && random.nextBoolean()
                ? money(random, v.amountRemaining()).max(CENTAVO)
                : null;
        Invoice.Charge charge = v.charge(asked);
        assertTrue(charge instanceof Invoice.Accepted, at + ": " + charge);
        BigDecimal amount = ((Invoice.Accepted) charge).amount();
        if (rate != null && !partial && payments.isEmpty()) {
          assertEquals(v.deposit(), amount, at + ": the deposit comes first");
        }
        v = v.paid("pay_" + steps, amount, now);
        payments.add(amount);
        check(v, at);
        if (!payments.isEmpty() && random.nextInt(5) == 0) {
          BigDecimal refunded = money(random, payments.get(payments.size() - 1)).max(CENTAVO);
          v = v.refunded(refunded, now);
          check(v, at);
        }
      }
      assertEquals(InvoiceStatus.PAID, v.status(), at);
      assertNotNull(v.paidAt());
      Invoice.Refused again = (Invoice.Refused) v.charge(null);
      assertEquals(ErrorCode.INVOICE_PAID, again.code());
    }
  }

  private static void check(Invoice v, String at) {
    if (v.amountPaid().compareTo(v.amount()) <= 0) {
      assertEquals(v.amount(), v.amountPaid().add(v.amountRemaining()), at);
    }
    InvoiceStatus expected =
        v.amountRemaining().signum() == 0
            ? InvoiceStatus.PAID
            : v.amountPaid().signum() == 0 ? InvoiceStatus.SENT : InvoiceStatus.PARTIAL;
    assertEquals(expected, v.status(), at);
    if (v.status() != InvoiceStatus.PAID) {
      assertTrue(v.amountDueNow().compareTo(v.amountRemaining()) <= 0, at);
      assertTrue(v.amountDueNow().signum() > 0, at);
    }
  }

  private static Invoice invoice(
      List<LineItem> lines, InvoiceMoney.Totals totals, BigDecimal rate, boolean partial) {
    Instant created = Instant.parse("2026-11-24T00:00:00Z");
    return new Invoice(
        "inv_01jd3k4m5n6p7q8r9s0t1v2w3x",
        "mer_1",
        "test",
        InvoiceKind.INVOICE,
        null,
        InvoiceStatus.DRAFT,
        totals.amount(),
        totals.subtotal(),
        totals.amount().subtract(totals.subtotal()),
        BigDecimal.ZERO.setScale(2),
        "PHP",
        null,
        lines,
        null,
        null,
        null,
        null,
        partial,
        BigDecimal.ZERO.setScale(2),
        rate,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        "{}",
        InvoiceTokens.generate(),
        null,
        created,
        created);
  }

  private static List<LineItem> lines(Random random) {
    int count = 1 + random.nextInt(random.nextBoolean() ? 3 : 50);
    List<LineItem> lines = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      BigDecimal quantity =
          BigDecimal.valueOf(1 + random.nextInt(100_000), random.nextInt(5)).max(bd("0.0001"));
      BigDecimal unit = BigDecimal.valueOf(random.nextInt(10_000_000), random.nextInt(5));
      if (random.nextInt(4) == 0) {
        lines.add(new LineItem("given", quantity, unit, money(random, bd("10000"))));
      } else {
        LineItem line = LineItem.computed("computed", quantity, unit);
        BigDecimal exact = quantity.multiply(unit);
        assertTrue(line.amount().subtract(exact).abs().compareTo(HALF_CENTAVO) <= 0);
        assertEquals(exact.setScale(2, RoundingMode.HALF_UP), line.amount());
        lines.add(line);
      }
    }
    return lines;
  }

  /** A random amount of centavos from 0 to {@code max}. */
  private static BigDecimal money(Random random, BigDecimal max) {
    long centavos = max.movePointRight(2).longValue();
    return BigDecimal.valueOf(centavos <= 0 ? 0 : (long) (random.nextDouble() * (centavos + 1)), 2)
        .min(max.setScale(2, RoundingMode.DOWN));
  }

  private static BigDecimal rate(Random random) {
    return BigDecimal.valueOf(1 + random.nextInt(99_999_999), 8);
  }

  private static BigDecimal bd(String value) {
    return new BigDecimal(value);
  }
}
