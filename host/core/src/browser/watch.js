async (page) => {
  // Beside an action's call (`guard.rs`, `NetworkGuard::watch`): waits until
  // the guard holds a request, or WAIT_MS pass, and says what it holds now.
  // It forgets nothing and installs nothing: the guard's own calls do both,
  // so an answer nobody reads loses nothing, and a missing guard is for
  // them to find and say.
  const WAIT_MS = /*WAIT_MS*/0;
  const MARK = /*MARK*/'';
  // Answered as an error, as the guard answers: no settle wait after it.
  const reply = (answer) => { throw new Error(MARK + JSON.stringify(answer)); };
  const g = page.context()['__subterminatorGuard'];
  if (!g || !Array.isArray(g.watchers)) reply({ fresh: true });
  if (g.held.length === 0) {
    await new Promise((resolve) => {
      const wake = () => { clearTimeout(timer); resolve(); };
      const timer = setTimeout(() => {
        const at = g.watchers.indexOf(wake);
        if (at >= 0) g.watchers.splice(at, 1);
        resolve();
      }, WAIT_MS);
      g.watchers.push(wake);
    });
  }
  reply({ fresh: false, held: g.held });
}
