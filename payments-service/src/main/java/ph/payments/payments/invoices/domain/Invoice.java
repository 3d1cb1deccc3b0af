package ph.payments.payments.invoices.domain;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import ph.payments.platform.errors.ErrorCode;

/**
 * An invoice (SPEC part 2 "Invoice"). {@code amount_remaining} is derived: amount − amount_paid,
 * never below 0. A payment that succeeds for more than the invoice still takes (two payments racing
 * for the same remaining, or one created before a void) counts in full, and its {@link #excessOf
 * excess} is refunded at once in the same transaction, which takes it back out of amount_paid
 * (docs/invoices.md "Overpayment"). {@code metadata} is JSON text so the domain stays plain Java.
 *
 * @param token the public page's token ({@code /i/{token}}), drawn at creation
 * @param balanceDueAnnouncedAt when {@code invoice.balance_due} was written (once per invoice)
 */
public record Invoice(
    String id,
    String merchantId,
    String environment,
    InvoiceKind kind,
    String number,
    InvoiceStatus status,
    BigDecimal amount,
    BigDecimal subtotal,
    BigDecimal taxAmount,
    BigDecimal discountAmount,
    String currency,
    String description,
    List<LineItem> lineItems,
    String customerId,
    LocalDate dueDate,
    String notes,
    String terms,
    boolean allowPartialPayment,
    BigDecimal amountPaid,
    BigDecimal depositRate,
    Instant depositDueAt,
    Instant balanceDueAt,
    String shipmentId,
    Instant forfeitedAt,
    Instant issuedAt,
    Instant sentAt,
    Instant paidAt,
    Instant voidAt,
    String paymentId,
    String metadataJson,
    String token,
    Instant balanceDueAnnouncedAt,
    Instant createdAt,
    Instant updatedAt) {

  public Invoice {
    Objects.requireNonNull(id);
    Objects.requireNonNull(status);
    lineItems = List.copyOf(lineItems);
    if (lineItems.isEmpty()) {
      throw new IllegalArgumentException("an invoice has at least one line");
    }
    if (amount.signum() < 0 || amountPaid.signum() < 0) {
      throw new IllegalArgumentException("invoice money is never negative");
    }
    if (!InvoiceTokens.matches(token)) {
      throw new IllegalArgumentException("malformed token");
    }
  }

  public BigDecimal amountRemaining() {
    BigDecimal remaining = amount.subtract(amountPaid);
    return remaining.signum() < 0 ? BigDecimal.ZERO.setScale(InvoiceMoney.SCALE) : remaining;
  }

  /** The deposit of a two-stage invoice, or null. */
  public BigDecimal deposit() {
    return depositRate == null ? null : InvoiceMoney.deposit(amount, depositRate);
  }

  /** True when the invoice has no deposit stage, or its deposit is paid in full. */
  public boolean depositPaid() {
    BigDecimal deposit = deposit();
    return deposit == null || amountPaid.compareTo(deposit) >= 0;
  }

  /** Whether customers may pay it now: sent or partial. */
  public boolean payable() {
    return status == InvoiceStatus.SENT || status == InvoiceStatus.PARTIAL;
  }

  /**
   * What a customer pays now when partial payment is not allowed: the rest of the deposit while it
   * is unpaid on a two-stage invoice, else the remaining; 0 when the invoice takes no payment.
   */
  public BigDecimal amountDueNow() {
    if (!payable()) {
      return BigDecimal.ZERO.setScale(InvoiceMoney.SCALE);
    }
    return depositPaid() ? amountRemaining() : deposit().subtract(amountPaid);
  }

  /** {@code deposit} or {@code balance} for a payable two-stage invoice, else null. */
  public String stage() {
    if (depositRate == null || !payable()) {
      return null;
    }
    return depositPaid() ? "balance" : "deposit";
  }

  /** The answer to {@link #charge}. */
  public sealed interface Charge permits Accepted, Refused {}

  public record Accepted(BigDecimal amount) implements Charge {}

  /** {@code issues} names fields for {@code invalid_request}, else empty. */
  public record Refused(ErrorCode code, String message, Map<String, String> issues)
      implements Charge {}

  /**
   * Whether a payment of {@code asked} (null: the amount due now) may be made now, in this order
   * (plan of issue 17): draft 409 {@code invoice_not_sent}; void or forfeited 409 {@code
   * invoice_void}; paid 409 {@code invoice_paid}; above the remaining 400 {@code invalid_request}
   * on {@code amount}; partial payment not allowed and not the amount due now 400 {@code
   * partial_not_allowed}.
   */
  public Charge charge(BigDecimal asked) {
    switch (status) {
      case DRAFT:
        return new Refused(
            ErrorCode.INVOICE_NOT_SENT, "This invoice is a draft and takes no payment.", Map.of());
      case VOID:
        return new Refused(
            ErrorCode.INVOICE_VOID,
            forfeitedAt != null
                ? "This invoice was forfeited and takes no payment."
                : "This invoice is void and takes no payment.",
            Map.of());
      case PAID:
        return new Refused(ErrorCode.INVOICE_PAID, "This invoice is paid in full.", Map.of());
      default:
        break;
    }
    BigDecimal due = amountDueNow();
    if (asked == null) {
      return new Accepted(due);
    }
    if (asked.compareTo(amountRemaining()) > 0) {
      return new Refused(
          ErrorCode.INVALID_REQUEST,
          "The request has invalid fields.",
          Map.of(
              "amount",
              "must be at most "
                  + amountRemaining().toPlainString()
                  + ", the invoice's remaining"));
    }
    if (!allowPartialPayment && asked.compareTo(due) != 0) {
      return new Refused(
          ErrorCode.PARTIAL_NOT_ALLOWED,
          "This invoice takes "
              + due.toPlainString()
              + " now"
              + (stage() == null ? "" : " (the " + stage() + ")")
              + "; it does not allow partial payment.",
          Map.of());
    }
    return new Accepted(InvoiceMoney.centavos(asked));
  }

  /**
   * A payment of {@code paid} succeeded at {@code at}: amount_paid grows, {@code payment_id} names
   * it, and a sent or partial invoice becomes partial or paid ({@code paid_at}). A void invoice
   * (voided while the payment was pending) counts the money and stays void.
   */
  public Invoice paid(String paymentId, BigDecimal paid, Instant at) {
    BigDecimal total = amountPaid.add(paid);
    InvoiceStatus next = status;
    Instant paidAtNext = paidAt;
    if (payable()) {
      boolean full = total.compareTo(amount) >= 0;
      next = full ? InvoiceStatus.PAID : InvoiceStatus.PARTIAL;
      paidAtNext = full ? at : null;
    }
    return with(next, total, paymentId, paidAtNext, voidAt, forfeitedAt, at);
  }

  /**
   * A refund of {@code refunded} of one of its payments succeeded: amount_paid shrinks (never below
   * 0) and a paid or partial invoice reopens: partial while something is still paid, else sent;
   * {@code paid_at} is cleared. A void invoice stays void.
   */
  public Invoice refunded(BigDecimal refunded, Instant at) {
    BigDecimal total = amountPaid.subtract(refunded);
    if (total.signum() < 0) {
      total = BigDecimal.ZERO.setScale(InvoiceMoney.SCALE);
    }
    InvoiceStatus next = status;
    Instant paidAtNext = paidAt;
    if (status == InvoiceStatus.PAID || status == InvoiceStatus.PARTIAL) {
      if (total.compareTo(amount) >= 0) {
        next = InvoiceStatus.PAID;
      } else {
        next = total.signum() == 0 ? InvoiceStatus.SENT : InvoiceStatus.PARTIAL;
        paidAtNext = null;
      }
    }
    return with(next, total, paymentId, paidAtNext, voidAt, forfeitedAt, at);
  }

  /**
   * What of a payment of {@code paid} this invoice does not take, before the payment is counted:
   * the part above the remaining while it takes payments, all of it otherwise (void, forfeited,
   * paid). Zero when the invoice takes the whole payment.
   */
  public BigDecimal excessOf(BigDecimal paid) {
    if (!payable()) {
      return paid;
    }
    BigDecimal excess = paid.subtract(amountRemaining());
    return excess.signum() > 0 ? excess : BigDecimal.ZERO.setScale(InvoiceMoney.SCALE);
  }

  /** Voided now (the caller checked {@link InvoiceTransitions#allows}). */
  public Invoice voided(Instant at) {
    return with(InvoiceStatus.VOID, amountPaid, paymentId, paidAt, at, forfeitedAt, at);
  }

  /** Forfeited now: void, with {@code forfeited_at} and {@code void_at} both now. */
  public Invoice forfeited(Instant at) {
    return with(InvoiceStatus.VOID, amountPaid, paymentId, paidAt, at, at, at);
  }

  /** Whether the deposit window passed with the deposit not paid in full. */
  public boolean forfeitable(Instant now) {
    return payable() && depositRate != null && !depositPaid() && !now.isBefore(depositDueAt);
  }

  /**
   * Whether {@code invoice.balance_due} is due now and not yet written: something remains and
   * either the deposit of a two-stage invoice is paid (the balance is now due) or the term elapsed.
   */
  public boolean balanceDue(Instant now) {
    if (!payable() || balanceDueAnnouncedAt != null || amountRemaining().signum() == 0) {
      return false;
    }
    boolean depositStageDone = depositRate != null && depositPaid();
    boolean termElapsed = balanceDueAt != null && !now.isBefore(balanceDueAt);
    return depositStageDone || termElapsed;
  }

  public Invoice balanceDueAnnounced(Instant at) {
    return new Invoice(
        id,
        merchantId,
        environment,
        kind,
        number,
        status,
        amount,
        subtotal,
        taxAmount,
        discountAmount,
        currency,
        description,
        lineItems,
        customerId,
        dueDate,
        notes,
        terms,
        allowPartialPayment,
        amountPaid,
        depositRate,
        depositDueAt,
        balanceDueAt,
        shipmentId,
        forfeitedAt,
        issuedAt,
        sentAt,
        paidAt,
        voidAt,
        paymentId,
        metadataJson,
        token,
        at,
        createdAt,
        at);
  }

  /** Sent now with its number (null for activation fees) and due times ({@link InvoiceTerms}). */
  public Invoice sent(String assignedNumber, Instant at) {
    Instant balance = InvoiceTerms.balanceDueAt(dueDate);
    Instant deposit = depositRate == null ? null : InvoiceTerms.depositDueAt(at, balance);
    return new Invoice(
        id,
        merchantId,
        environment,
        kind,
        assignedNumber,
        InvoiceStatus.SENT,
        amount,
        subtotal,
        taxAmount,
        discountAmount,
        currency,
        description,
        lineItems,
        customerId,
        dueDate,
        notes,
        terms,
        allowPartialPayment,
        amountPaid,
        depositRate,
        deposit,
        balance,
        shipmentId,
        forfeitedAt,
        at,
        at,
        paidAt,
        voidAt,
        paymentId,
        metadataJson,
        token,
        balanceDueAnnouncedAt,
        createdAt,
        at);
  }

  private Invoice with(
      InvoiceStatus next,
      BigDecimal paid,
      String lastPaymentId,
      Instant paidAtNext,
      Instant voidAtNext,
      Instant forfeitedAtNext,
      Instant at) {
    return new Invoice(
        id,
        merchantId,
        environment,
        kind,
        number,
        next,
        amount,
        subtotal,
        taxAmount,
        discountAmount,
        currency,
        description,
        lineItems,
        customerId,
        dueDate,
        notes,
        terms,
        allowPartialPayment,
        paid,
        depositRate,
        depositDueAt,
        balanceDueAt,
        shipmentId,
        forfeitedAtNext,
        issuedAt,
        sentAt,
        paidAtNext,
        voidAtNext,
        lastPaymentId,
        metadataJson,
        token,
        balanceDueAnnouncedAt,
        createdAt,
        at);
  }
}
