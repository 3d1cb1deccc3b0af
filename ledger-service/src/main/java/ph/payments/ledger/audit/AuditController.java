package ph.payments.ledger.audit;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import ph.payments.ledger.holds.domain.PayoutHold;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.money.Money;
import ph.payments.platform.tx.Transactions;

/**
 * Operator reads of the ledger (reached through the gateway's operator API): the audit and a
 * merchant's statement.
 */
@Controller("/internal")
@ExecuteOn(TaskExecutors.BLOCKING)
public class AuditController {

  private static final Set<String> ENVIRONMENTS = Set.of("test", "live");

  private final LedgerAudit audit;
  private final Statements statements;
  private final Transactions transactions;
  private final Clock clock;

  public AuditController(
      LedgerAudit audit, Statements statements, Transactions transactions, Clock clock) {
    this.audit = audit;
    this.statements = statements;
    this.transactions = transactions;
    this.clock = clock;
  }

  /** Recomputes every balance from the postings and reports every difference. */
  @Get("/audit")
  public ObjectNode audit() {
    LedgerAudit.Report report = audit.run();
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("object", "ledger_audit");
    json.put("ok", report.ok());
    json.put("consistent", report.consistent());
    json.put("checked_at", report.checkedAt().getEpochSecond());
    json.put("accounts", report.accounts());
    json.put("transactions", report.transactions());
    json.put("postings", report.postings());
    ArrayNode differences = json.putArray("balance_differences");
    for (LedgerAudit.BalanceDifference d : report.balanceDifferences()) {
      ObjectNode row = differences.addObject();
      row.put("account_id", d.accountId());
      row.put("account", d.code());
      row.put("merchant_id", d.merchantId());
      row.put("environment", d.environment());
      row.put("currency", d.currency());
      row.put("balance", d.balance());
      row.put("sum_of_postings", d.sumOfPostings());
      row.put("last_balance_after", d.lastBalanceAfter());
    }
    ArrayNode unbalanced = json.putArray("unbalanced_transactions");
    for (LedgerAudit.UnbalancedTransaction t : report.unbalancedTransactions()) {
      ObjectNode row = unbalanced.addObject();
      row.put("transaction_id", t.transactionId());
      row.put("kind", t.kind());
      row.put("reference", t.reference());
      row.put("sum", t.sum());
    }
    ArrayNode totals = json.putArray("totals");
    for (LedgerAudit.Total t : report.totals()) {
      ObjectNode row = totals.addObject();
      row.put("environment", t.environment());
      row.put("currency", t.currency());
      row.put("sum_of_postings", t.sumOfPostings());
      row.put("postings", t.postings());
    }
    ArrayNode inFlight = json.putArray("in_flight_differences");
    for (LedgerAudit.InFlightDifference d : report.inFlightDifferences()) {
      ObjectNode row = inFlight.addObject();
      row.put("merchant_id", d.merchantId());
      row.put("environment", d.environment());
      row.put("currency", d.currency());
      row.put("in_flight_balance", d.inFlightBalance());
      row.put("held_payouts", d.heldPayouts());
    }
    ObjectNode anomalies = json.putObject("anomalies");
    anomalies.put("count", report.anomalyCount());
    ArrayNode recent = anomalies.putArray("recent");
    for (JdbcAnomalies.Anomaly a : report.recentAnomalies()) {
      ObjectNode row = recent.addObject();
      row.put("id", a.id());
      row.put("message_id", a.messageId());
      row.put("message_type", a.messageType());
      row.put("message_key", a.messageKey());
      row.put("merchant_id", a.merchantId());
      row.put("reason", a.reason());
      row.put("recorded_at", a.recordedAt().getEpochSecond());
    }
    ArrayNode oldHolds = json.putArray("old_holds");
    for (PayoutHold h : report.oldHolds()) {
      ObjectNode row = oldHolds.addObject();
      row.put("payout_id", h.payoutId());
      row.put("merchant_id", h.merchantId());
      row.put("environment", h.environment());
      row.put("amount", h.amount().amount());
      row.put("currency", h.currency());
      row.put("created", h.createdAt().getEpochSecond());
    }
    return json;
  }

  /**
   * {@code merchant_id} and {@code environment} required; {@code from} (inclusive) and {@code to}
   * (exclusive) as Unix seconds, {@code YYYY-MM-DD} (midnight UTC) or an ISO 8601 instant,
   * defaulting to the beginning and now; {@code currency} optional.
   */
  @Get(value = "/statements", produces = "text/csv")
  public HttpResponse<String> statement(
      @Nullable @QueryValue("merchant_id") String merchantId,
      @Nullable @QueryValue String environment,
      @Nullable @QueryValue String from,
      @Nullable @QueryValue String to,
      @Nullable @QueryValue String currency) {
    Map<String, String> issues = new LinkedHashMap<>();
    if (!IdType.MERCHANT.matches(merchantId)) {
      issues.put("merchant_id", "must be a merchant id (mer_…)");
    }
    if (environment == null || !ENVIRONMENTS.contains(environment)) {
      issues.put("environment", "must be test or live");
    }
    if (currency != null && !Money.isCurrencyCode(currency)) {
      issues.put("currency", "must be a 3-letter upper-case currency code");
    }
    Instant start = from == null ? Instant.EPOCH : time(from, "from", issues);
    Instant end = to == null ? clock.instant().plusSeconds(1) : time(to, "to", issues);
    if (start != null && end != null && !start.isBefore(end) && issues.isEmpty()) {
      issues.put("to", "must be after from");
    }
    if (!issues.isEmpty()) {
      throw ApiException.invalid(issues);
    }
    String csv =
        transactions.inTransaction(
            c -> statements.csv(c, merchantId, environment, currency, start, end));
    return HttpResponse.ok(csv)
        .contentType(MediaType.of("text/csv; charset=utf-8"))
        .header(
            "Content-Disposition",
            "attachment; filename=\"statement-" + merchantId + "-" + environment + ".csv\"");
  }

  /** Unix seconds, a date (midnight UTC) or an ISO 8601 instant. */
  static Instant time(String value, String name, Map<String, String> issues) {
    try {
      if (value.matches("\\d{1,12}")) {
        return Instant.ofEpochSecond(Long.parseLong(value));
      }
      if (value.matches("\\d{4}-\\d{2}-\\d{2}")) {
        return LocalDate.parse(value).atStartOfDay(ZoneOffset.UTC).toInstant();
      }
      return Instant.parse(value);
    } catch (DateTimeException | NumberFormatException e) {
      issues.put(name, "must be Unix seconds, YYYY-MM-DD or an ISO 8601 instant");
      return null;
    }
  }
}
