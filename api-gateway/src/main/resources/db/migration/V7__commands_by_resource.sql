-- GET /v1/<resources>/{id} answers from the command log while the creating command of that id is
-- accepted but not yet applied (202 pending) or after the owner rejected it (the rejection), so
-- the status URL of a 202 is never a bare 404. That lookup goes by the allocated resource id.
CREATE INDEX commands_resource_idx ON commands (resource_id) WHERE resource_id IS NOT NULL;
