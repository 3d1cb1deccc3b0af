-- Issue 20: the scheduler's claim reads, per target with a free slot, only that target's due
-- deliveries; it finds the targets by walking this index one descent per target. It used to read
-- every due delivery in order and pass over those of targets at their limit: with one receiver
-- thousands behind, each claim read all of its backlog (docs/webhooks.md, "How deliveries run").
CREATE INDEX webhook_deliveries_target_due_idx
  ON webhook_deliveries (target, next_attempt_at, id) WHERE status = 'pending';
