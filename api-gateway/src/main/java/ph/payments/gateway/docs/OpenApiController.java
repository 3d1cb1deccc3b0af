package ph.payments.gateway.docs;

import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Serves the OpenAPI description of the API at {@code /openapi.yaml}, without authentication. */
@Controller
public class OpenApiController {

  static final String RESOURCE = "/openapi/openapi.yaml";
  private final byte[] document;

  public OpenApiController() {
    try (InputStream in = OpenApiController.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the classpath");
      }
      document = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Get(uri = "/openapi.yaml", produces = "application/yaml")
  public HttpResponse<byte[]> openApi() {
    return HttpResponse.ok(document).contentType(MediaType.of("application/yaml"));
  }
}
