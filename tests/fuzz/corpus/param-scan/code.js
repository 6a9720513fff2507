const body = $input.first().json.body ?? {};
const uid = body.uid;
const mailbox = body.mailbox ?? "INBOX";
const limit = parameters.limit || 25;
const s = `t ${body.x ?? 2}`;
/* body.no */
