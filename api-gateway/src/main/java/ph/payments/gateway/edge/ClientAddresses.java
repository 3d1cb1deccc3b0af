package ph.payments.gateway.edge;

import io.micronaut.context.annotation.Value;
import io.micronaut.http.HttpRequest;
import jakarta.inject.Singleton;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The client address a request is limited by: the socket's peer, unless that peer is one of the
 * configured proxies ({@code gateway.edge.trusted-proxies}, addresses or CIDR ranges; none by
 * default), in which case {@code X-Forwarded-For} is read from the right, skipping further trusted
 * proxies. A header from anyone else is ignored, so a client cannot pick its own bucket.
 */
@Singleton
public class ClientAddresses {

  private static final Pattern IPV4 =
      Pattern.compile(
          "(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}");
  private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]{2,45}");

  private final List<Range> trusted = new ArrayList<>();

  public ClientAddresses(@Value("${gateway.edge.trusted-proxies:}") List<String> trustedProxies) {
    for (String entry : trustedProxies) {
      if (!entry.isBlank()) {
        trusted.add(Range.parse(entry.strip()));
      }
    }
  }

  /** The address to count {@code request} against, as text; "unknown" without a peer. */
  public String of(HttpRequest<?> request) {
    InetAddress peer =
        request.getRemoteAddress() == null ? null : request.getRemoteAddress().getAddress();
    if (peer == null) {
      return "unknown";
    }
    InetAddress client = peer;
    if (isTrusted(client)) {
      List<String> hops = request.getHeaders().getAll("X-Forwarded-For");
      List<String> all = new ArrayList<>();
      hops.forEach(h -> all.addAll(List.of(h.split(","))));
      for (int i = all.size() - 1; i >= 0; i--) {
        InetAddress hop = literal(all.get(i).strip());
        if (hop == null) {
          break; // garbage: keep the last address a trusted proxy vouched for
        }
        client = hop;
        if (!isTrusted(hop)) {
          break;
        }
      }
    }
    return client.getHostAddress();
  }

  private boolean isTrusted(InetAddress address) {
    return trusted.stream().anyMatch(range -> range.contains(address));
  }

  /** An IP literal, never a name to resolve; null for anything else. */
  static InetAddress literal(String text) {
    if (!IPV4.matcher(text).matches() && !(text.contains(":") && IPV6.matcher(text).matches())) {
      return null;
    }
    try {
      return InetAddress.getByName(text); // a literal: no lookup happens
    } catch (UnknownHostException e) {
      return null;
    }
  }

  private record Range(byte[] network, int prefix) {

    static Range parse(String text) {
      int slash = text.indexOf('/');
      InetAddress address = literal(slash < 0 ? text : text.substring(0, slash));
      if (address == null) {
        throw new IllegalArgumentException(
            "gateway.edge.trusted-proxies: not an IP address or CIDR range: " + text);
      }
      int bits = address.getAddress().length * 8;
      int prefix = slash < 0 ? bits : Integer.parseInt(text.substring(slash + 1));
      if (prefix < 0 || prefix > bits) {
        throw new IllegalArgumentException("gateway.edge.trusted-proxies: bad prefix in " + text);
      }
      return new Range(address.getAddress(), prefix);
    }

    boolean contains(InetAddress address) {
      byte[] candidate = address.getAddress();
      if (candidate.length != network.length) {
        return false;
      }
      for (int bit = 0; bit < prefix; bit++) {
        int mask = 0x80 >>> (bit % 8);
        if ((candidate[bit / 8] & mask) != (network[bit / 8] & mask)) {
          return false;
        }
      }
      return true;
    }
  }
}
