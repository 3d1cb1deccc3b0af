package ph.payments.ledger.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import ph.payments.ledger.journal.domain.AccountCode;
import ph.payments.ledger.journal.domain.AccountKey;
import ph.payments.ledger.journal.domain.EntryKind;
import ph.payments.ledger.journal.domain.JournalEntry;
import ph.payments.ledger.journal.domain.Posting;
import ph.payments.ledger.journal.domain.PostingRules;
import ph.payments.platform.money.Money;

/** Each posting rule's legs, and the journal entry's own checks. */
class PostingRulesTest {

  private static final String M = "mer_01jd3k4m5n6p7q8r9s0t1v2w3x";
  private static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");

  @Test
  void paymentSucceeded() {
    JournalEntry entry =
        PostingRules.paymentSucceeded(
            M, "test", "pay_1", "evt_1", php("1000.00"), php("25.00"), php("975.00"), NOW);
    assertEquals(EntryKind.PAYMENT_SUCCEEDED, entry.kind());
    assertEquals(
        Map.of(
            "provider_clearing",
            "-1000.00",
            "merchant_available",
            "975.00",
            "platform_fees",
            "25.00"),
        legs(entry));
  }

  @Test
  void paymentSucceededRefusesANetThatIsNotAmountLessFee() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            PostingRules.paymentSucceeded(
                M, "test", "pay_1", null, php("100.00"), php("3.00"), php("98.00"), NOW));
  }

  @Test
  void refundSucceeded() {
    assertEquals(
        Map.of("merchant_available", "-40.00", "provider_clearing", "40.00"),
        legs(PostingRules.refundSucceeded(M, "live", "re_1", "evt_2", php("40.00"), NOW)));
  }

  @Test
  void payoutHeldIsGuardedAgainstOverdraft() {
    JournalEntry entry = PostingRules.payoutHeld(M, "test", "po_1", php("300.00"), NOW);
    assertEquals(
        Map.of("merchant_available", "-300.00", "merchant_payouts_in_flight", "300.00"),
        legs(entry));
    assertEquals(
        AccountKey.of(AccountCode.MERCHANT_AVAILABLE, M, "test", "PHP"), entry.mustNotOverdraw());
  }

  @Test
  void payoutSettledFromItsHoldOrFromAvailable() {
    assertEquals(
        Map.of(
            "merchant_payouts_in_flight",
            "-300.00",
            "provider_clearing",
            "290.00",
            "platform_fees",
            "10.00"),
        legs(
            PostingRules.payoutSettled(
                M, "test", "po_1", "e", php("300.00"), php("10.00"), true, NOW)));
    assertEquals(
        Map.of("merchant_available", "-300.00", "provider_clearing", "300.00"),
        legs(
            PostingRules.payoutSettled(
                M, "test", "po_1", "e", php("300.00"), php("0.00"), false, NOW)));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            PostingRules.payoutSettled(
                M, "test", "po_1", "e", php("5.00"), php("6.00"), true, NOW));
  }

  @Test
  void payoutReversed() {
    assertEquals(
        Map.of("merchant_payouts_in_flight", "-300.00", "merchant_available", "300.00"),
        legs(PostingRules.payoutReversed(M, "test", "po_1", "e", php("300.00"), NOW)));
  }

  @Test
  void anEntryMustBalanceStayInOneBookAndNameEachAccountOnce() {
    AccountKey available = AccountKey.of(AccountCode.MERCHANT_AVAILABLE, M, "test", "PHP");
    AccountKey fees = available.sibling(AccountCode.PLATFORM_FEES);
    AccountKey live = AccountKey.of(AccountCode.PLATFORM_FEES, M, "live", "PHP");
    assertThrows(
        IllegalArgumentException.class,
        () ->
            entry(
                List.of(Posting.credit(available, php("1.00")), Posting.debit(fees, php("0.99")))));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            entry(
                List.of(Posting.credit(available, php("1.00")), Posting.debit(live, php("1.00")))));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            entry(
                List.of(
                    Posting.credit(available, php("1.00")),
                    Posting.debit(available, php("1.00")))));
    assertThrows(
        IllegalArgumentException.class,
        () -> entry(List.of(Posting.credit(available, php("0.00")))));
    assertThrows(
        IllegalArgumentException.class, () -> Posting.credit(available, Money.of("1.00", "USD")));
  }

  private static JournalEntry entry(List<Posting> postings) {
    return new JournalEntry(
        EntryKind.PAYMENT_SUCCEEDED, "pay_x", null, "test", "PHP", NOW, postings, null);
  }

  private static Map<String, String> legs(JournalEntry entry) {
    Map<String, String> legs = new TreeMap<>();
    entry
        .postings()
        .forEach(p -> legs.put(p.account().code().wire(), p.amount().amount().toPlainString()));
    return legs;
  }

  private static Money php(String amount) {
    return Money.of(amount, "PHP");
  }
}
