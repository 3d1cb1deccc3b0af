-- Issue 14, item 1: replies of non-public addresses are never kept. Until now test-mode deliveries
-- went to any address, so a test-mode attempt's response_snippet may hold up to 1 KB of what an
-- internal service answered (the attack's loot). Which address an old attempt reached is not
-- recorded, so every test-mode snippet goes; live mode was guarded, and its snippets stay. The
-- attempts themselves (time, status, latency) stay for the merchant's log.
UPDATE webhook_attempts a
   SET response_snippet = NULL
  FROM webhook_deliveries d
 WHERE d.id = a.delivery_id
   AND d.environment = 'test'
   AND a.response_snippet IS NOT NULL;
