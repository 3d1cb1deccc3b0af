package ph.payments.gateway.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.uri.UriBuilder;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import ph.payments.gateway.routing.Owner;
import ph.payments.gateway.routing.ReadRouter;
import ph.payments.gateway.web.ListParams;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;
import ph.payments.platform.kafka.ParkedMessages;
import ph.payments.platform.micronaut.ParkedMessagesController;
import ph.payments.platform.tx.Transactions;

/**
 * Parked commands and events of every service on the operator API (behind {@link
 * AdminTokenFilter}): records a consumer gave up on after they kept failing on their own
 * (docs/runbook.md, "Parked messages"). The gateway's own (command replies) are read from its
 * database, the owners' through their internal API; parked ids sort in parking order in every
 * service, so the pages merge into one ascending list. {@code unresolved} is the total monitoring
 * polls.
 *
 * <p>There is no retry: a parked command was answered with a rejection, and applying it now would
 * contradict the answer the merchant has (the merchant retries with a new Idempotency-Key). An
 * operator resolves a parked record once dealt with.
 */
@Controller("/admin/v1/parked_commands")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ParkedCommandsController {

  private final ReadRouter reads;
  private final Transactions transactions;
  private final ParkedMessages parked;
  private final String service;

  public ParkedCommandsController(
      ReadRouter reads,
      Transactions transactions,
      ParkedMessages parked,
      @Value("${micronaut.application.name}") String service) {
    this.reads = reads;
    this.transactions = transactions;
    this.parked = parked;
    this.service = service;
  }

  @Get
  public HttpResponse<?> list(HttpRequest<?> request) {
    ListParams params = ListParams.from(request);
    List<JsonNode> merged = new ArrayList<>();
    boolean hasMore = false;
    long unresolved = 0;
    ObjectNode own =
        transactions.inTransaction(
            connection -> {
              List<ParkedMessages.Parked> rows =
                  parked.page(connection, params.limit() + 1, params.startingAfter());
              return ParkedMessagesController.page(
                  rows.subList(0, Math.min(params.limit(), rows.size())),
                  rows.size() > params.limit(),
                  parked.unresolved(connection),
                  service);
            });
    List<ObjectNode> pages = new ArrayList<>(List.of(own));
    for (Owner owner : Owner.values()) {
      UriBuilder uri =
          UriBuilder.of("/internal/parked_messages").queryParam("limit", params.limit());
      if (params.startingAfter() != null) {
        uri.queryParam("starting_after", params.startingAfter());
      }
      HttpResponse<String> answer = reads.getPublic(owner, uri.build().toString());
      if (answer.getStatus().getCode() != 200) {
        return answer; // the owner's error envelope: an incomplete list would mislead
      }
      pages.add((ObjectNode) Json.tree(answer.body()));
    }
    for (ObjectNode page : pages) {
      page.get("data").forEach(merged::add);
      hasMore |= page.get("has_more").asBoolean();
      unresolved += page.get("unresolved").asLong();
    }
    merged.sort(Comparator.comparing(node -> node.get("id").asText()));
    ObjectNode result = Json.mapper().createObjectNode();
    result.put("object", "list");
    result.putArray("data").addAll(merged.subList(0, Math.min(params.limit(), merged.size())));
    result.put("has_more", hasMore || merged.size() > params.limit());
    result.put("unresolved", unresolved);
    return HttpResponse.ok(result);
  }

  /**
   * Marks a parked record as dealt with ({@code {"resolution": "…"}}, optional); it stays listed,
   * with {@code resolved_at}, and no longer counts as unresolved.
   */
  @Post("/{id}/resolve")
  public HttpResponse<?> resolve(String id, @Nullable @Body JsonNode body) {
    if (!id.startsWith(ParkedMessages.ID_PREFIX) || !id.matches("[a-z]+_[0-9a-z]+")) {
      throw ApiException.notFound("parked message");
    }
    String resolution = ParkedMessagesController.resolution(body);
    var local =
        transactions.inTransaction(connection -> parked.resolve(connection, id, resolution));
    if (local.isPresent()) {
      return HttpResponse.ok(ParkedMessagesController.view(local.get(), service));
    }
    byte[] forward = Json.toBytes(Map.of("resolution", resolution));
    for (Owner owner : Owner.values()) {
      HttpResponse<String> answer =
          reads.postRaw(owner, "/internal/parked_messages/" + id + "/resolve", forward, Map.of());
      if (answer.getStatus().getCode() != 404) {
        return answer;
      }
    }
    throw ApiException.notFound("parked message");
  }
}
