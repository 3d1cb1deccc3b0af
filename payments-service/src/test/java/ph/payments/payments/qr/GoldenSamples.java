package ph.payments.payments.qr;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The real-world payloads in {@code qr/golden-qrph.txt}; that file says where each one comes from.
 */
final class GoldenSamples {

  /** One published payload and the short name the file gives it. */
  record Sample(String name, String payload) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static final List<Sample> ALL = load();

  private GoldenSamples() {}

  static List<Sample> all() {
    return ALL;
  }

  static Sample named(String name) {
    return ALL.stream()
        .filter(s -> s.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no golden sample " + name));
  }

  /** The samples that are dynamic QR Ph person-to-merchant codes, readable by QrPhPayload. */
  static List<Sample> dynamicP2m() {
    return List.of(
        named("landmark-rcbc-dynamic"),
        named("paymongo-online-dynamic"),
        named("starpay-dynamic"),
        named("maya-dynamic"));
  }

  private static List<Sample> load() {
    List<Sample> samples = new ArrayList<>();
    try (InputStream in = GoldenSamples.class.getResourceAsStream("/qr/golden-qrph.txt")) {
      if (in == null) {
        throw new IllegalStateException("qr/golden-qrph.txt is not on the test classpath");
      }
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        int tab = line.indexOf('\t');
        samples.add(new Sample(line.substring(0, tab), line.substring(tab + 1)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return List.copyOf(samples);
  }
}
