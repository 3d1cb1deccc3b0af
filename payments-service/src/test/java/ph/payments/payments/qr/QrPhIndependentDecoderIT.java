package ph.payments.payments.qr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A second opinion from outside our code: promptparse, a published EMVCo parser for Node.js, reads
 * our live and test-mode payloads and the golden samples. It must accept each one in strict mode
 * (where it checks the CRC itself) and read the same tag and sub-tag values as our decoder, and it
 * must refuse a payload whose CRC we broke.
 *
 * <p>Needs {@code node} and {@code npm} on the PATH and the npm registry for the first run, which
 * installs {@value #PACKAGE} into {@code target/node}. Without them the test fails with a message
 * saying so: a check that silently passes when its tool is missing would prove nothing.
 */
class QrPhIndependentDecoderIT {

  private static final String PACKAGE = "promptparse@1.6.0";
  private static final String VERSION = "1.6.0";
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Path moduleDir;
  private static Path nodeDir;
  private static Path script;

  @BeforeAll
  static void installPromptparse() throws Exception {
    moduleDir = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
    nodeDir = moduleDir.resolve("target/node");
    script = moduleDir.resolve("src/test/node/promptparse-check.cjs");
    requireTool("node");
    requireTool("npm");
    Path installed = nodeDir.resolve("node_modules/promptparse/package.json");
    if (Files.exists(installed)
        && VERSION.equals(JSON.readTree(installed.toFile()).path("version").asText())) {
      return;
    }
    Files.createDirectories(nodeDir);
    Result npm =
        run(
            List.of(
                "npm",
                "install",
                "--no-save",
                "--no-audit",
                "--no-fund",
                "--prefix",
                nodeDir.toString(),
                PACKAGE),
            null,
            180);
    if (npm.exitCode() != 0 || !Files.exists(installed)) {
      fail("npm install " + PACKAGE + " failed (exit " + npm.exitCode() + "):\n" + npm.output());
    }
  }

  @Test
  void agreesOnTheCrcAlgorithm() throws Exception {
    JsonNode report = promptparse(List.of(QrPhPayloadTest.EXPECTED_LIVE));

    assertEquals(VERSION, report.path("version").asText());
    assertEquals(Crc16CcittFalse.hex("123456789"), report.path("checksum123456789").asText());
  }

  @Test
  void acceptsOurLivePayloads() throws Exception {
    assertAcceptedWithSameTags(ourPayloads(false));
  }

  @Test
  void acceptsOurTestModePayloads() throws Exception {
    assertAcceptedWithSameTags(ourPayloads(true));
  }

  @Test
  void acceptsTheGoldenSamples() throws Exception {
    assertAcceptedWithSameTags(
        GoldenSamples.all().stream().map(GoldenSamples.Sample::payload).toList());
  }

  @Test
  void refusesABrokenCrc() throws Exception {
    String good = QrPhPayload.live(QrPhPayloadTest.liveRequest()).qrCode();
    String badCrc = good.substring(0, good.length() - 1) + (good.endsWith("0") ? "1" : "0");
    String badName = good.replace("Sari-Sari Store", "Sari-Sari Stork");
    List<String> broken = List.of(badCrc, badName);

    JsonNode results = promptparse(broken).path("results");
    for (int i = 0; i < broken.size(); i++) {
      JsonNode result = results.get(i);
      assertFalse(
          result.path("strictAccepted").asBoolean(), "promptparse accepted " + broken.get(i));
      assertFalse(result.path("crcValid").asBoolean(), broken.get(i));
      assertFalse(EmvMpmCodec.decode(broken.get(i)).isAccepted(), "we accepted " + broken.get(i));
    }
  }

  private static List<String> ourPayloads(boolean testMode) {
    List<String> payloads = new ArrayList<>();
    String[][] cases = {
      {"0.01", "Sari-Sari Store", null},
      {"1500.00", "Café Niño Panaderia at Kapihan sa Kanto", "INV-0042"},
      {"9999999999.99", "A", "B"},
    };
    for (String[] c : cases) {
      AcquirerId acquirer = testMode ? AcquirerId.SANDBOX : QrPhPayloadTest.LIVE_ACQUIRER;
      DynamicP2mRequest request =
          new DynamicP2mRequest(
              acquirer,
              "MRCH-000123",
              "5411",
              new BigDecimal(c[0]),
              c[1],
              "Quezon City",
              "PR-2026-000001",
              c[2]);
      payloads.add((testMode ? QrPhPayload.testMode(request) : QrPhPayload.live(request)).qrCode());
    }
    return payloads;
  }

  private static void assertAcceptedWithSameTags(List<String> payloads) throws Exception {
    JsonNode results = promptparse(payloads).path("results");
    assertEquals(payloads.size(), results.size());
    for (int i = 0; i < payloads.size(); i++) {
      String payload = payloads.get(i);
      JsonNode result = results.get(i);
      assertTrue(result.path("strictAccepted").asBoolean(), "strict parse refused " + payload);
      assertTrue(result.path("crcValid").asBoolean(), "CRC not valid for " + payload);
      assertTrue(result.path("wellFormed").asBoolean(), "not well-formed TLV: " + payload);
      assertEquals(payload.substring(payload.length() - 4), result.path("checksum").asText());
      assertSameTags(EmvMpmCodec.decode(payload).orElseThrow(), result.path("tags"), payload);
    }
  }

  /**
   * Same ids, order and values at the top level; for each of our templates, the same sub-tags.
   * promptparse also tries to split primitive values that happen to look like TLV; those guesses
   * are not compared.
   */
  private static void assertSameTags(EmvPayload ours, JsonNode theirs, String payload) {
    assertEquals(ours.objects().size(), theirs.size(), "number of tags in " + payload);
    for (int i = 0; i < theirs.size(); i++) {
      Tlv our = ours.objects().get(i);
      JsonNode their = theirs.get(i);
      assertEquals(our.id(), their.path("id").asText(), payload);
      assertEquals(our.value(), their.path("value").asText(), "tag " + our.id() + " of " + payload);
      if (our.isTemplate()) {
        JsonNode subTags = their.path("subTags");
        assertEquals(our.children().size(), subTags.size(), "sub-tags of " + our.id());
        for (int j = 0; j < subTags.size(); j++) {
          assertEquals(our.children().get(j).id(), subTags.get(j).path("id").asText());
          assertEquals(our.children().get(j).value(), subTags.get(j).path("value").asText());
        }
      }
    }
  }

  private static JsonNode promptparse(List<String> payloads) throws Exception {
    Result node =
        run(
            List.of("node", script.toString(), nodeDir.resolve("node_modules").toString()),
            JSON.writeValueAsString(payloads),
            60);
    if (node.exitCode() != 0) {
      fail("promptparse-check.cjs failed (exit " + node.exitCode() + "):\n" + node.output());
    }
    return JSON.readTree(node.stdout());
  }

  private static void requireTool(String tool) {
    try {
      Result version = run(List.of(tool, "--version"), null, 60);
      if (version.exitCode() != 0) {
        fail(tool + " --version failed: " + version.output());
      }
    } catch (IOException e) {
      fail(
          "QrPhIndependentDecoderIT needs '"
              + tool
              + "' (Node.js 18+ with npm) on the PATH to run the independent EMVCo decoder"
              + " promptparse; install Node.js. Cause: "
              + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fail("interrupted while looking for " + tool);
    }
  }

  /** What a command printed: stdout is the data, stderr goes into failure messages only. */
  private record Result(int exitCode, String stdout, String stderr) {
    String output() {
      return stdout + (stderr.isEmpty() ? "" : "\n[stderr]\n" + stderr);
    }
  }

  private static Result run(List<String> command, String stdin, int timeoutSeconds)
      throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).directory(moduleDir.toFile()).start();
    CompletableFuture<String> stdout =
        CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()));
    CompletableFuture<String> stderr =
        CompletableFuture.supplyAsync(() -> readAll(process.getErrorStream()));
    try (OutputStream in = process.getOutputStream()) {
      if (stdin != null) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      }
    }
    if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      fail(String.join(" ", command) + " did not finish within " + timeoutSeconds + " s");
    }
    return new Result(process.exitValue(), stdout.join(), stderr.join());
  }

  private static String readAll(InputStream in) {
    try {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(output unreadable: " + e.getMessage() + ")";
    }
  }
}
