// The offline page keeps trying the server and goes back to the app by itself once it answers.
(function () {
  var status = document.getElementById('status');
  var tries = 0;
  function attempt() {
    tries++;
    fetch('/healthz', { cache: 'no-store' })
      .then(function (r) {
        if (r.ok) location.replace('/');
        else throw new Error('HTTP ' + r.status);
      })
      .catch(function () {
        status.textContent = 'Still unreachable — retried ' + tries + ' time' + (tries === 1 ? '' : 's') + '.';
      });
  }
  document.getElementById('retry').addEventListener('click', attempt);
  setInterval(attempt, 3000);
  window.addEventListener('online', attempt);
})();
