// The person at the browser, signing in where the run paused for them: it
// finds the tab that shows a password field over the browser's DevTools
// endpoint, types the password there and submits the form, as a person
// would with the keyboard. Node.js 22 (its built-in WebSocket), no
// packages.
//
//   node sign_in.mjs <devtools port> <password>
//
// Exits 0 once the form was submitted, 1 when no tab asked for a password.

const [port, password] = process.argv.slice(2);

const call = (socket, id, method, params) => new Promise((resolve, reject) => {
  socket.addEventListener('message', function on(event) {
    const message = JSON.parse(event.data);
    if (message.id !== id) return;
    socket.removeEventListener('message', on);
    if (message.error) reject(new Error(message.error.message));
    else resolve(message.result);
  });
  socket.send(JSON.stringify({ id, method, params }));
});

// Fills the first empty password field and submits its form; true if there
// was one.
const fill = `(() => {
  const field = [...document.querySelectorAll('input[type=password]')].find((f) => !f.value);
  if (!field || !field.form) return false;
  field.focus();
  field.value = ${JSON.stringify(password)};
  field.dispatchEvent(new Event('input', { bubbles: true }));
  field.form.requestSubmit();
  return true;
})()`;

const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
for (const target of targets.filter((t) => t.type === 'page')) {
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', reject, { once: true });
  });
  const where = async (id) => (await call(socket, id, 'Runtime.evaluate', {
    expression: 'location.href + " " + document.readyState', returnByValue: true,
  })).result.value;
  const before = (await where(1)).split(' ')[0];
  const { result } = await call(socket, 2, 'Runtime.evaluate', { expression: fill, returnByValue: true });
  if (result && result.value === true) {
    // Done when the page the sign-in leads to has loaded, as a person would
    // wait before going back to the terminal.
    for (let id = 3; id < 100; id++) {
      await new Promise((r) => setTimeout(r, 100));
      const now = await where(id).catch(() => '');
      if (now && !now.startsWith(before + ' ') && now.endsWith(' complete')) break;
    }
    socket.close();
    process.exit(0);
  }
  socket.close();
}
process.exit(1);
