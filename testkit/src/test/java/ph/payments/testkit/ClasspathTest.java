package ph.payments.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.testcontainers.images.builder.Transferable;

/** Guards the exclusions in testkit's pom: what they keep off, and what they keep working. */
class ClasspathTest {

  @Test
  void jacksonScalaModuleStaysOff() {
    // Would be auto-registered into Micronaut's ObjectMapper in every consumer's tests.
    assertThrows(
        ClassNotFoundException.class,
        () -> Class.forName("com.fasterxml.jackson.module.scala.DefaultScalaModule"));
  }

  @Test
  void testcontainersCanStillBuildTarArchives() throws Exception {
    // What KafkaContainer does to copy its start script into the container, on the
    // commons-compress / commons-io pair that ends up on the classpath; no Docker needed.
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (TarArchiveOutputStream tar = new TarArchiveOutputStream(bytes)) {
      tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
      tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
      Transferable.of("#!/bin/bash\necho started\n", 0777).transferTo(tar, "/tmp/start.sh");
      tar.finish();
    }
    try (TarArchiveInputStream tar =
        new TarArchiveInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      TarArchiveEntry entry = tar.getNextEntry();
      assertNotNull(entry);
      assertEquals("tmp/start.sh", entry.getName());
      assertEquals(
          "#!/bin/bash\necho started\n", new String(tar.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void logbackIsTheOnlySlf4jBackend() {
    assertEquals(
        "ch.qos.logback.classic.LoggerContext",
        LoggerFactory.getILoggerFactory().getClass().getName());
  }
}
