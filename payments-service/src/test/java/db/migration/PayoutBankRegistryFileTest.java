package db.migration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The registry file parses, and malformed files are refused with the line that is wrong. */
class PayoutBankRegistryFileTest {

  @Test
  void theShippedFileIsWellFormed() throws IOException {
    List<R__Payout_bank_registry.Bank> banks = R__Payout_bank_registry.parse(shipped());
    assertTrue(banks.size() >= 30, "a registry of real institutions: " + banks.size());
    R__Payout_bank_registry.Bank bdo =
        banks.stream().filter(b -> b.code().equals("BNORPHMMXXX")).findFirst().orElseThrow();
    assertEquals("BDO Unibank, Inc.", bdo.name(), "quoted names keep their commas");
    assertEquals("010530667", bdo.brstn());
    R__Payout_bank_registry.Bank gcash =
        banks.stream().filter(b -> b.code().equals("GXCHPHM2XXX")).findFirst().orElseThrow();
    assertEquals("emi", gcash.kind());
    assertNull(gcash.brstn(), "no routing number is guessed");
    assertTrue(banks.stream().anyMatch(b -> b.status() == 0), "merged banks stay, inactive");
  }

  @Test
  void malformedRowsAreRefusedNamingTheLine() {
    String header = "code,name,kind,brstn,status\n";
    for (String row :
        List.of(
            "BNORPHMM,Short code,bank,,1",
            "BNORPHMMXXX,\"Unterminated,bank,,1",
            "BNORPHMMXXX,Bad kind,wallet,,1",
            "BNORPHMMXXX,Bad routing,bank,12345,1",
            "BNORPHMMXXX,Bad status,bank,,2",
            "BNORPHMMXXX,Too few,bank,1")) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> R__Payout_bank_registry.parse("# comment\n" + header + row + "\n"),
              row);
      assertTrue(e.getMessage().contains("line 3"), e.getMessage());
    }
    assertThrows(
        IllegalArgumentException.class,
        () ->
            R__Payout_bank_registry.parse(
                header + "BNORPHMMXXX,A,bank,,1\nBNORPHMMXXX,B,bank,,1\n"),
        "duplicate code");
  }

  private static String shipped() throws IOException {
    try (InputStream in =
        PayoutBankRegistryFileTest.class
            .getClassLoader()
            .getResourceAsStream(R__Payout_bank_registry.FILE)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
