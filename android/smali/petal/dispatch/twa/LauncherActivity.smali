# LauncherActivity: opens the PWA at launch_url as a Trusted Web Activity, in the browser.
#
# No DEX compiler for Java is reachable here, so this is Dalvik assembly (smali), assembled by
# Debian's smali and checked statically: baksmali/dexdump and aapt in test/bin/apk.test.ts. It has
# NOT been run on a phone. It is what androidx.browser + android-browser-helper do, by hand:
#
#   1. pick a browser (CustomTabs.provider): the default one if its Custom Tabs service says it
#      does TWAs, else any service that says so, else any Custom Tabs service, else none at all;
#   2. TWA: bindService(Intent("android.support.customtabs.action.CustomTabsService")
#      .setPackage(browser)) (CustomTabsClient.bindCustomTabsServicePreservePriority), then
#      ICustomTabsService.newSession(callback) (CustomTabs.newSession), then
#      startActivity(VIEW url, package browser, EXTRA_SESSION = the callback binder,
#      LAUNCH_AS_TRUSTED_WEB_ACTIVITY = true) (TrustedWebActivityIntentBuilder.build);
#   3. no TWA browser, or the binding or the session refused: a Custom Tab (the same intent, null
#      session, no TWA extra: android-browser-helper TwaLauncher's CCT_FALLBACK_STRATEGY);
#   4. no Custom Tabs browser, or that start refused: plain ACTION_VIEW, the default browser;
#   5. nothing at all: a log line and finish() — every startActivity catches
#      ActivityNotFoundException, so the app never crashes for want of a browser.
#
# Sources of the names used here (androidx/androidx, browser/browser/src/main/…; CustomTabs.smali
# picks the browser, makes the session and builds the intent, and cites its own):
#   java/androidx/browser/customtabs/TrustedWebUtils.java: EXTRA_LAUNCH_AS_TRUSTED_WEB_ACTIVITY =
#     "android.support.customtabs.extra.LAUNCH_AS_TRUSTED_WEB_ACTIVITY" (boolean true), put by
#     java/androidx/browser/trusted/TrustedWebActivityIntentBuilder.java build(session).
#   java/androidx/browser/customtabs/CustomTabsClient.java bindCustomTabsServicePreservePriority:
#     bindService(Intent(ACTION_CUSTOM_TABS_CONNECTION).setPackage(browser), connection,
#     BIND_AUTO_CREATE).

.class public final Lpetal/dispatch/twa/LauncherActivity;
.super Landroid/app/Activity;
.implements Landroid/content/ServiceConnection;

# The address to open: launch_url, or the https link to TWA_HOST the app was opened with.
.field private mUri:Landroid/net/Uri;
# The browser package chosen, or null.
.field private mProvider:Ljava/lang/String;
# Whether bindService was called (so onDestroy unbinds).
.field private mBound:Z
# Whether a browser activity was started (so coming back to this activity closes it).
.field private mLaunched:Z
# The session binder; held here for as long as the activity lives.
.field private mSession:Landroid/os/IBinder;


.method public constructor <init>()V
    .locals 0
    # super()
    invoke-direct {p0}, Landroid/app/Activity;-><init>()V
    return-void
.end method


# onCreate(Bundle saved): choose the browser and start the launch.
.method protected onCreate(Landroid/os/Bundle;)V
    .locals 4
    # super.onCreate(saved)
    invoke-super {p0, p1}, Landroid/app/Activity;->onCreate(Landroid/os/Bundle;)V
    # Recreated after the browser was started (process death, back from the browser): just close.
    if-eqz p1, :fresh
    const-string v0, "launched"
    invoke-virtual {p1, v0}, Landroid/os/Bundle;->getBoolean(Ljava/lang/String;)Z
    move-result v0
    if-eqz v0, :fresh
    invoke-virtual {p0}, Landroid/app/Activity;->finish()V
    return-void

    :fresh
    # mUri = launchUri()
    invoke-direct {p0}, Lpetal/dispatch/twa/LauncherActivity;->launchUri()Landroid/net/Uri;
    move-result-object v0
    iput-object v0, p0, Lpetal/dispatch/twa/LauncherActivity;->mUri:Landroid/net/Uri;
    # v1 = the default browser's package, or null
    invoke-static {p0}, Lpetal/dispatch/twa/CustomTabs;->defaultBrowser(Landroid/content/Context;)Ljava/lang/String;
    move-result-object v1
    # v2 = a browser whose Custom Tabs service carries the TWA category, the default one first
    const-string v2, "androidx.browser.trusted.category.TrustedWebActivities"
    invoke-static {p0, v2, v1}, Lpetal/dispatch/twa/CustomTabs;->provider(Landroid/content/Context;Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;
    move-result-object v2
    if-eqz v2, :no_twa
    iput-object v2, p0, Lpetal/dispatch/twa/LauncherActivity;->mProvider:Ljava/lang/String;
    # v3 = new Intent(ACTION_CUSTOM_TABS_CONNECTION).setPackage(browser), as CustomTabsClient binds
    new-instance v3, Landroid/content/Intent;
    const-string v0, "android.support.customtabs.action.CustomTabsService"
    invoke-direct {v3, v0}, Landroid/content/Intent;-><init>(Ljava/lang/String;)V
    invoke-virtual {v3, v2}, Landroid/content/Intent;->setPackage(Ljava/lang/String;)Landroid/content/Intent;
    # bindService(v3, this, BIND_AUTO_CREATE = 1); a SecurityException counts as refused
    :bind_start
    const/4 v0, 0x1
    invoke-virtual {p0, v3, p0, v0}, Landroid/content/Context;->bindService(Landroid/content/Intent;Landroid/content/ServiceConnection;I)Z
    move-result v0
    :bind_end
    .catch Ljava/lang/SecurityException; {:bind_start .. :bind_end} :bind_refused
    # Called: unbind in onDestroy whatever it answered (the docs ask for it even after false).
    const/4 v1, 0x1
    iput-boolean v1, p0, Lpetal/dispatch/twa/LauncherActivity;->mBound:Z
    # Bound: onServiceConnected continues; refused: a Custom Tab in that browser.
    if-eqz v0, :bind_refused
    return-void
    :bind_refused
    invoke-direct {p0}, Lpetal/dispatch/twa/LauncherActivity;->openCustomTab()V
    return-void

    :no_twa
    # v2 = a browser with any Custom Tabs service, the default one first
    const/4 v2, 0x0
    invoke-static {p0, v2, v1}, Lpetal/dispatch/twa/CustomTabs;->provider(Landroid/content/Context;Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;
    move-result-object v2
    if-eqz v2, :no_tabs
    iput-object v2, p0, Lpetal/dispatch/twa/LauncherActivity;->mProvider:Ljava/lang/String;
    invoke-direct {p0}, Lpetal/dispatch/twa/LauncherActivity;->openCustomTab()V
    return-void

    :no_tabs
    # No Custom Tabs at all: the default browser.
    invoke-direct {p0}, Lpetal/dispatch/twa/LauncherActivity;->openBrowser()V
    return-void
.end method


# launchUri(): the https link to TWA_HOST this activity was opened with (App Links), else
# launch_url. Any other data (another app's explicit intent) is ignored.
.method private launchUri()Landroid/net/Uri;
    .locals 4
    # v0 = getResources().getIdentifier("launch_url", "string", getPackageName()): by name, so this
    # code holds no aapt-assigned resource number
    invoke-virtual {p0}, Landroid/content/Context;->getResources()Landroid/content/res/Resources;
    move-result-object v2
    const-string v0, "launch_url"
    const-string v1, "string"
    invoke-virtual {p0}, Landroid/content/Context;->getPackageName()Ljava/lang/String;
    move-result-object v3
    invoke-virtual {v2, v0, v1, v3}, Landroid/content/res/Resources;->getIdentifier(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)I
    move-result v0
    # v0 = Uri.parse(getString(v0))
    invoke-virtual {p0, v0}, Landroid/content/Context;->getString(I)Ljava/lang/String;
    move-result-object v0
    invoke-static {v0}, Landroid/net/Uri;->parse(Ljava/lang/String;)Landroid/net/Uri;
    move-result-object v0
    # v1 = getIntent().getData(), the link opened, or null
    invoke-virtual {p0}, Landroid/app/Activity;->getIntent()Landroid/content/Intent;
    move-result-object v1
    invoke-virtual {v1}, Landroid/content/Intent;->getData()Landroid/net/Uri;
    move-result-object v1
    if-eqz v1, :start_url
    # "https".equals(link.getScheme())
    const-string v2, "https"
    invoke-virtual {v1}, Landroid/net/Uri;->getScheme()Ljava/lang/String;
    move-result-object v3
    invoke-virtual {v2, v3}, Ljava/lang/String;->equals(Ljava/lang/Object;)Z
    move-result v2
    if-eqz v2, :start_url
    # start.getHost().equals(link.getHost())
    invoke-virtual {v0}, Landroid/net/Uri;->getHost()Ljava/lang/String;
    move-result-object v2
    invoke-virtual {v1}, Landroid/net/Uri;->getHost()Ljava/lang/String;
    move-result-object v3
    invoke-virtual {v2, v3}, Ljava/lang/String;->equals(Ljava/lang/Object;)Z
    move-result v2
    if-eqz v2, :start_url
    return-object v1
    :start_url
    return-object v0
.end method


# ServiceConnection.onServiceConnected(name, service): the browser's ICustomTabsService is bound;
# create a session on it and launch the Trusted Web Activity with it.
.method public onServiceConnected(Landroid/content/ComponentName;Landroid/os/IBinder;)V
    .locals 1
    # A reconnection after the launch (the browser restarted): nothing to do.
    iget-boolean v0, p0, Lpetal/dispatch/twa/LauncherActivity;->mLaunched:Z
    if-nez v0, :done
    # v0 = mSession = new Binder(): the session's callback, which is the session's identity
    new-instance v0, Landroid/os/Binder;
    invoke-direct {v0}, Landroid/os/Binder;-><init>()V
    iput-object v0, p0, Lpetal/dispatch/twa/LauncherActivity;->mSession:Landroid/os/IBinder;
    # CustomTabs.newSession(service, callback): created? then launchTwa(callback)
    invoke-static {p2, v0}, Lpetal/dispatch/twa/CustomTabs;->newSession(Landroid/os/IBinder;Landroid/os/IBinder;)Z
    move-result v0
    if-eqz v0, :no_session
    iget-object v0, p0, Lpetal/dispatch/twa/LauncherActivity;->mSession:Landroid/os/IBinder;
    invoke-direct {p0, v0}, Lpetal/dispatch/twa/LauncherActivity;->launchTwa(Landroid/os/IBinder;)V
    return-void
    :no_session
    # The browser refused a session: a Custom Tab in it.
    invoke-direct {p0}, Lpetal/dispatch/twa/LauncherActivity;->openCustomTab()V
    :done
    return-void
.end method


# ServiceConnection.onServiceDisconnected(name): the browser's process went away. A started
# activity lives on in the browser; the system reconnects by itself and onServiceConnected ignores
# that reconnection.
.method public onServiceDisconnected(Landroid/content/ComponentName;)V
    .locals 0
    return-void
.end method


# ServiceConnection.onBindingDied(name) (API 26+; never called before): the binding is dead for
# good, so if nothing was started yet, fall back to a Custom Tab.
.method public onBindingDied(Landroid/content/ComponentName;)V
    .locals 1
    iget-boolean v0, p0, Lpetal/dispatch/twa/LauncherActivity;->mLaunched:Z
    if-nez v0, :done
    invoke-direct {p0}, Lpetal/dispatch/twa/LauncherActivity;->openCustomTab()V
    :done
    return-void
.end method


# ServiceConnection.onNullBinding(name) (API 28+; never called before): the browser's onBind gave
# no binder, so onServiceConnected never comes: fall back to a Custom Tab.
.method public onNullBinding(Landroid/content/ComponentName;)V
    .locals 0
    invoke-direct {p0}, Lpetal/dispatch/twa/LauncherActivity;->openCustomTab()V
    return-void
.end method


# launchTwa(session): the Custom Tab intent with the session and
# LAUNCH_AS_TRUSTED_WEB_ACTIVITY = true; the browser shows it without its toolbar once it has
# verified /.well-known/assetlinks.json. If it cannot be started: the default browser.
.method private launchTwa(Landroid/os/IBinder;)V
    .locals 3
    # v0 = CustomTabs.tabIntent(this, mUri, mProvider, session)
    iget-object v0, p0, Lpetal/dispatch/twa/LauncherActivity;->mUri:Landroid/net/Uri;
    iget-object v1, p0, Lpetal/dispatch/twa/LauncherActivity;->mProvider:Ljava/lang/String;
    invoke-static {p0, v0, v1, p1}, Lpetal/dispatch/twa/CustomTabs;->tabIntent(Landroid/content/Context;Landroid/net/Uri;Ljava/lang/String;Landroid/os/IBinder;)Landroid/content/Intent;
    move-result-object v0
    # v0.putExtra(EXTRA_LAUNCH_AS_TRUSTED_WEB_ACTIVITY, true), then start it, else the browser
    const-string v1, "android.support.customtabs.extra.LAUNCH_AS_TRUSTED_WEB_ACTIVITY"
    const/4 v2, 0x1
    invoke-virtual {v0, v1, v2}, Landroid/content/Intent;->putExtra(Ljava/lang/String;Z)Landroid/content/Intent;
    invoke-direct {p0, v0}, Lpetal/dispatch/twa/LauncherActivity;->start(Landroid/content/Intent;)Z
    move-result v0
    if-nez v0, :started
    invoke-direct {p0}, Lpetal/dispatch/twa/LauncherActivity;->openBrowser()V
    :started
    return-void
.end method


# openCustomTab(): the Custom Tab intent with a null session in mProvider; if it cannot be
# started: the default browser.
.method private openCustomTab()V
    .locals 3
    # v0 = CustomTabs.tabIntent(this, mUri, mProvider, null); start it, else the default browser
    iget-object v0, p0, Lpetal/dispatch/twa/LauncherActivity;->mUri:Landroid/net/Uri;
    iget-object v1, p0, Lpetal/dispatch/twa/LauncherActivity;->mProvider:Ljava/lang/String;
    const/4 v2, 0x0
    invoke-static {p0, v0, v1, v2}, Lpetal/dispatch/twa/CustomTabs;->tabIntent(Landroid/content/Context;Landroid/net/Uri;Ljava/lang/String;Landroid/os/IBinder;)Landroid/content/Intent;
    move-result-object v0
    invoke-direct {p0, v0}, Lpetal/dispatch/twa/LauncherActivity;->start(Landroid/content/Intent;)Z
    move-result v0
    if-nez v0, :started
    invoke-direct {p0}, Lpetal/dispatch/twa/LauncherActivity;->openBrowser()V
    :started
    return-void
.end method


# openBrowser(): plain new Intent(ACTION_VIEW, mUri), whatever handles it; if nothing does, a log
# line and finish().
.method private openBrowser()V
    .locals 3
    new-instance v0, Landroid/content/Intent;
    const-string v1, "android.intent.action.VIEW"
    iget-object v2, p0, Lpetal/dispatch/twa/LauncherActivity;->mUri:Landroid/net/Uri;
    invoke-direct {v0, v1, v2}, Landroid/content/Intent;-><init>(Ljava/lang/String;Landroid/net/Uri;)V
    invoke-direct {p0, v0}, Lpetal/dispatch/twa/LauncherActivity;->start(Landroid/content/Intent;)Z
    move-result v0
    if-nez v0, :started
    const-string v0, "petal-dispatch"
    const-string v1, "no browser can open the app's address"
    invoke-static {v0, v1}, Landroid/util/Log;->w(Ljava/lang/String;Ljava/lang/String;)I
    invoke-virtual {p0}, Landroid/app/Activity;->finish()V
    :started
    return-void
.end method


# start(intent): startActivity(intent); true when started, false when nothing can take it
# (ActivityNotFoundException) or the target refuses this app (SecurityException).
.method private start(Landroid/content/Intent;)Z
    .locals 1
    :try_start
    invoke-virtual {p0, p1}, Landroid/app/Activity;->startActivity(Landroid/content/Intent;)V
    :try_end
    .catch Landroid/content/ActivityNotFoundException; {:try_start .. :try_end} :refused
    .catch Ljava/lang/SecurityException; {:try_start .. :try_end} :refused
    const/4 v0, 0x1
    iput-boolean v0, p0, Lpetal/dispatch/twa/LauncherActivity;->mLaunched:Z
    return v0
    :refused
    const/4 v0, 0x0
    return v0
.end method


# onRestart(): the user came back from the browser (its activity closed): close the app too.
.method protected onRestart()V
    .locals 1
    invoke-super {p0}, Landroid/app/Activity;->onRestart()V
    iget-boolean v0, p0, Lpetal/dispatch/twa/LauncherActivity;->mLaunched:Z
    if-eqz v0, :stay
    invoke-virtual {p0}, Landroid/app/Activity;->finish()V
    :stay
    return-void
.end method


# onSaveInstanceState(out): remember whether the browser was started (read back in onCreate).
.method protected onSaveInstanceState(Landroid/os/Bundle;)V
    .locals 2
    invoke-super {p0, p1}, Landroid/app/Activity;->onSaveInstanceState(Landroid/os/Bundle;)V
    const-string v0, "launched"
    iget-boolean v1, p0, Lpetal/dispatch/twa/LauncherActivity;->mLaunched:Z
    invoke-virtual {p1, v0, v1}, Landroid/os/Bundle;->putBoolean(Ljava/lang/String;Z)V
    return-void
.end method


# onDestroy(): unbind the browser's service if it was bound (IllegalArgumentException: it was not
# registered after all).
.method protected onDestroy()V
    .locals 1
    iget-boolean v0, p0, Lpetal/dispatch/twa/LauncherActivity;->mBound:Z
    if-eqz v0, :unbound
    const/4 v0, 0x0
    iput-boolean v0, p0, Lpetal/dispatch/twa/LauncherActivity;->mBound:Z
    :unbind_start
    invoke-virtual {p0, p0}, Landroid/content/Context;->unbindService(Landroid/content/ServiceConnection;)V
    :unbind_end
    .catch Ljava/lang/IllegalArgumentException; {:unbind_start .. :unbind_end} :unbound
    :unbound
    invoke-super {p0}, Landroid/app/Activity;->onDestroy()V
    return-void
.end method
