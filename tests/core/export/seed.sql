-- A conversation with every kind of message, for the export tests
-- (tests/core/test-ctl-conversations.py): fixed ids and times.
INSERT INTO conversations (id, slug, title, default_agent, unread_count, message_count, created_at, updated_at)
  VALUES ('c0ffee00-0000-4000-8000-000000000001', 'Email Inbox', 'Mail from Alice', 'prosponsive', 2, 8,
          '2026-03-02T09:15:00.000Z', '2026-03-02T09:20:00.000Z');
INSERT INTO messages (id, conversation_id, seq, kind, content, status, agent_id, context_json, execution_json,
                      dedup_key, extra_json, created_at, superseded_at) VALUES
  ('m1', 'c0ffee00-0000-4000-8000-000000000001', 1, 'inbound',
   'New email from alice@example.com: Re: Q3 Planning', 'completed', 'prosponsive',
   '{"uid":"12345","subject":"Re: Q3 Planning","openLink":{"url":"message://%3CCAF3q9%40example.com%3E","label":"Open in Mail"}}',
   '{"workflowId":"Xk3dP2","executionId":"1042"}', 'idem:agent-inference:c0ffee00:prosponsive:<m1@example>',
   '{"route":"agent-inference"}', '2026-03-02T09:15:00.000Z', NULL),
  ('m2', 'c0ffee00-0000-4000-8000-000000000001', 2, 'assistant',
   '**Subject:** Re: Q3 Planning
- From: alice@example.com
Pipe: a | b

Alice asks whether the meeting can move to Thursday. See [the agenda](https://example.com/agenda) or https://example.com/q3.',
   'completed', 'prosponsive',
   '{"uid":"12345","subject":"Re: Q3 Planning","openLink":{"url":"message://%3CCAF3q9%40example.com%3E","label":"Open in Mail"}}',
   NULL, NULL,
   '{"provider":{"id":"p1","name":"Local"},"model":"qwen2.5","usage":{"inputTokens":120,"outputTokens":45},"timing":{"firstTokenMs":350,"totalMs":1200},"runId":"run-1"}',
   '2026-03-02T09:15:05.000Z', NULL),
  ('m3', 'c0ffee00-0000-4000-8000-000000000001', 3, 'tool-call', 'email_move', 'succeeded', 'prosponsive', NULL, NULL, NULL,
   '{"name":"email_move","toolCallId":"call-1","round":1,"arguments":{"uid":"12345","destination":"Archive"},"runId":"run-1"}',
   '2026-03-02T09:15:06.000Z', NULL),
  ('m4', 'c0ffee00-0000-4000-8000-000000000001', 4, 'tool-result', '{"success":true,"moved":1}', 'succeeded', 'prosponsive',
   NULL, NULL, NULL, '{"name":"email_move","toolCallId":"call-1","runId":"run-1"}', '2026-03-02T09:15:08.000Z', NULL),
  ('m5', 'c0ffee00-0000-4000-8000-000000000001', 5, 'notice', 'n8n answered slowly.
The call went through.', NULL, NULL, NULL, NULL, NULL, NULL, '2026-03-02T09:15:09.000Z', NULL),
  ('m6', 'c0ffee00-0000-4000-8000-000000000001', 6, 'user', 'Thanks! Put ``` around code.', NULL, 'prosponsive',
   NULL, NULL, NULL, NULL, '2026-03-02T09:18:00.000Z', NULL),
  ('m7', 'c0ffee00-0000-4000-8000-000000000001', 7, 'assistant', 'An answer that was replaced.', 'completed',
   'prosponsive', NULL, NULL, NULL, NULL, '2026-03-02T09:18:02.000Z', '2026-03-02T09:19:00.000Z'),
  ('m8', 'c0ffee00-0000-4000-8000-000000000001', 8, 'assistant', 'You''re welcome.', 'completed', 'prosponsive',
   NULL, NULL, NULL, NULL, '2026-03-02T09:19:02.000Z', NULL);
INSERT INTO runs (id, conversation_id, agent_id, origin, trigger_message_id, status, context_json, execution_json,
                  options_json, transcript_json, assistant_message_id, stop_reason, error, round, created_at, updated_at)
  VALUES ('run-1', 'c0ffee00-0000-4000-8000-000000000001', 'prosponsive', 'agent-inference', 'm1', 'completed',
          '{"uid":"12345"}', '{"workflowId":"Xk3dP2","executionId":"1042"}', '{}',
          '[{"role":"user","text":"New email"},{"role":"assistant","text":"Moved."}]', 'm2', 'end', NULL, 1,
          '2026-03-02T09:15:00.500Z', '2026-03-02T09:15:10.000Z');
INSERT INTO tool_calls (id, run_id, message_id, result_message_id, round, position, provider_call_id, name,
                        arguments_json, status, result_text, created_at, updated_at)
  VALUES ('call-1', 'run-1', 'm3', 'm4', 1, 0, 'toolu_01', 'email_move', '{"uid":"12345","destination":"Archive"}',
          'succeeded', '{"success":true,"moved":1}', '2026-03-02T09:15:06.000Z', '2026-03-02T09:15:08.000Z');
INSERT INTO context_fields (conversation_id, path, type, sample, workflow_id, message_id, seen_count, first_seen, last_seen)
  VALUES ('c0ffee00-0000-4000-8000-000000000001', 'subject', 'string', 'Re: Q3 Planning', 'Xk3dP2', 'm1', 1,
          '2026-03-02T09:15:00.000Z', '2026-03-02T09:15:00.000Z');
