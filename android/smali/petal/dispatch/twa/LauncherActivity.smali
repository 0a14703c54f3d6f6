# LauncherActivity: opens the PWA at launch_url as a Trusted Web Activity, in the browser.
#
# No DEX compiler for Java is reachable here, so this is Dalvik assembly (smali), assembled by
# Debian's smali and checked statically: baksmali/dexdump and aapt in test/bin/apk.test.ts. It has
# NOT been run on a phone. It is what androidx.browser + android-browser-helper do, by hand:
#
#   1. pick a browser: the default one if its Custom Tabs service says it does TWAs, else any
#      service that says so (TwaProviderPicker in GoogleChrome/android-browser-helper), else any
#      Custom Tabs service, else no service at all;
#   2. TWA: bindService(Intent("android.support.customtabs.action.CustomTabsService")
#      .setPackage(browser)) (CustomTabsClient.bindCustomTabsServicePreservePriority), then
#      ICustomTabsService.newSession(callback) as a raw Binder transaction, then
#      startActivity(VIEW url, package browser, EXTRA_SESSION = the callback binder,
#      LAUNCH_AS_TRUSTED_WEB_ACTIVITY = true) (TrustedWebActivityIntentBuilder.build);
#   3. no TWA browser, or the binding or the session refused: a Custom Tab (the same intent with a
#      null session and no TWA extra: CustomTabsIntent.Builder.build, TwaLauncher's
#      CCT_FALLBACK_STRATEGY);
#   4. no Custom Tabs browser, or that start refused: plain ACTION_VIEW, the default browser;
#   5. nothing at all: a log line and finish() — every startActivity catches
#      ActivityNotFoundException, so the app never crashes for want of a browser.
#
# Sources of every name used (androidx/androidx, browser/browser/src/main/…):
#   java/androidx/browser/customtabs/CustomTabsService.java: ACTION_CUSTOM_TABS_CONNECTION =
#     "android.support.customtabs.action.CustomTabsService", TRUSTED_WEB_ACTIVITY_CATEGORY =
#     "androidx.browser.trusted.category.TrustedWebActivities"
#   java/androidx/browser/customtabs/CustomTabsIntent.java: EXTRA_SESSION =
#     "android.support.customtabs.extra.SESSION" ("This has to be included in the intent to open
#     in a custom tab. This is the same IBinder that gets passed to ICustomTabsService#newSession"),
#     put with Bundle.putBinder by Builder.setSessionParameters, null when there is no session;
#     Builder.setSession also calls setPackage(the session's browser). EXTRA_TOOLBAR_COLOR =
#     "android.support.customtabs.extra.TOOLBAR_COLOR" (an ARGB int, also the status bar).
#   java/androidx/browser/customtabs/TrustedWebUtils.java: EXTRA_LAUNCH_AS_TRUSTED_WEB_ACTIVITY =
#     "android.support.customtabs.extra.LAUNCH_AS_TRUSTED_WEB_ACTIVITY" (boolean true), put by
#     java/androidx/browser/trusted/TrustedWebActivityIntentBuilder.java build(session).
#   stableAidl/android/support/customtabs/ICustomTabsService.aidl: interface descriptor
#     "android.support.customtabs.ICustomTabsService", `boolean newSession(in ICustomTabsCallback
#     callback) = 2;` — AIDL numbers transactions FIRST_CALL_TRANSACTION (1) + id, so code 3 (the
#     generated Stub reads TRANSACTION_newSession = 3, TRANSACTION_warmup = 2). Its arguments are
#     the interface token, then the callback as a strong binder; the reply is writeNoException()
#     then the boolean as an int.
#   java/androidx/browser/customtabs/CustomTabsClient.java: newSession() sends an
#     ICustomTabsCallback.Stub and the session is that binder (CustomTabsSession.getBinder()). A
#     plain android.os.Binder serves as the callback: the browser only keys the session on it and
#     links to its death; calls it makes on it (navigation events) are answered "not handled".

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
    invoke-direct {p0}, Lpetal/dispatch/twa/LauncherActivity;->defaultBrowser()Ljava/lang/String;
    move-result-object v1
    # v2 = a browser whose Custom Tabs service carries the TWA category, the default one first
    const-string v2, "androidx.browser.trusted.category.TrustedWebActivities"
    invoke-direct {p0, v2, v1}, Lpetal/dispatch/twa/LauncherActivity;->pickProvider(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;
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
    invoke-direct {p0, v2, v1}, Lpetal/dispatch/twa/LauncherActivity;->pickProvider(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;
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
    # v0 = Uri.parse(getString(R.string.launch_url)), the id looked up by name
    const-string v0, "launch_url"
    const-string v1, "string"
    invoke-direct {p0, v0, v1}, Lpetal/dispatch/twa/LauncherActivity;->resourceId(Ljava/lang/String;Ljava/lang/String;)I
    move-result v0
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


# resourceId(name, type): getResources().getIdentifier(name, type, getPackageName()) — by name, so
# this code holds no aapt-assigned resource number.
.method private resourceId(Ljava/lang/String;Ljava/lang/String;)I
    .locals 2
    invoke-virtual {p0}, Landroid/content/Context;->getResources()Landroid/content/res/Resources;
    move-result-object v0
    invoke-virtual {p0}, Landroid/content/Context;->getPackageName()Ljava/lang/String;
    move-result-object v1
    invoke-virtual {v0, p1, p2, v1}, Landroid/content/res/Resources;->getIdentifier(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)I
    move-result v0
    return v0
.end method


# defaultBrowser(): the package that answers VIEW https:// by default (MATCH_DEFAULT_ONLY), as
# CustomTabsClient.getPackageName does; null when none. With no default chosen this is the system's
# chooser ("android"), which has no Custom Tabs service and so is passed over by pickProvider. The
# URI has no host, so this app's own filter (host TWA_HOST) never answers it.
.method private defaultBrowser()Ljava/lang/String;
    .locals 3
    # v0 = new Intent(ACTION_VIEW, Uri.parse("https://")).addCategory(CATEGORY_BROWSABLE)
    new-instance v0, Landroid/content/Intent;
    const-string v1, "android.intent.action.VIEW"
    const-string v2, "https://"
    invoke-static {v2}, Landroid/net/Uri;->parse(Ljava/lang/String;)Landroid/net/Uri;
    move-result-object v2
    invoke-direct {v0, v1, v2}, Landroid/content/Intent;-><init>(Ljava/lang/String;Landroid/net/Uri;)V
    const-string v1, "android.intent.category.BROWSABLE"
    invoke-virtual {v0, v1}, Landroid/content/Intent;->addCategory(Ljava/lang/String;)Landroid/content/Intent;
    # v0 = getPackageManager().resolveActivity(v0, MATCH_DEFAULT_ONLY = 0x10000)
    invoke-virtual {p0}, Landroid/content/Context;->getPackageManager()Landroid/content/pm/PackageManager;
    move-result-object v1
    const v2, 0x10000
    invoke-virtual {v1, v0, v2}, Landroid/content/pm/PackageManager;->resolveActivity(Landroid/content/Intent;I)Landroid/content/pm/ResolveInfo;
    move-result-object v0
    if-eqz v0, :none
    # return v0.activityInfo.packageName
    iget-object v0, v0, Landroid/content/pm/ResolveInfo;->activityInfo:Landroid/content/pm/ActivityInfo;
    if-eqz v0, :none
    iget-object v0, v0, Landroid/content/pm/ActivityInfo;->packageName:Ljava/lang/String;
    return-object v0
    :none
    const/4 v0, 0x0
    return-object v0
.end method


# pickProvider(category, preferred): a package with a Custom Tabs service (carrying `category`
# when it is not null): `preferred` if it has one, else the PackageManager's best match, else null.
.method private pickProvider(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;
    .locals 3
    invoke-virtual {p0}, Landroid/content/Context;->getPackageManager()Landroid/content/pm/PackageManager;
    move-result-object v0
    # v1 = new Intent(ACTION_CUSTOM_TABS_CONNECTION), plus the category when given
    new-instance v1, Landroid/content/Intent;
    const-string v2, "android.support.customtabs.action.CustomTabsService"
    invoke-direct {v1, v2}, Landroid/content/Intent;-><init>(Ljava/lang/String;)V
    if-eqz p1, :any_category
    invoke-virtual {v1, p1}, Landroid/content/Intent;->addCategory(Ljava/lang/String;)Landroid/content/Intent;
    :any_category
    if-eqz p2, :any_package
    # The preferred package first: resolveService(v1.setPackage(preferred), 0) != null
    invoke-virtual {v1, p2}, Landroid/content/Intent;->setPackage(Ljava/lang/String;)Landroid/content/Intent;
    const/4 v2, 0x0
    invoke-virtual {v0, v1, v2}, Landroid/content/pm/PackageManager;->resolveService(Landroid/content/Intent;I)Landroid/content/pm/ResolveInfo;
    move-result-object v2
    if-eqz v2, :not_preferred
    return-object p2
    :not_preferred
    # v1.setPackage(null): any package
    const/4 v2, 0x0
    invoke-virtual {v1, v2}, Landroid/content/Intent;->setPackage(Ljava/lang/String;)Landroid/content/Intent;
    :any_package
    # v2 = resolveService(v1, 0), null when no package has such a service
    const/4 v2, 0x0
    invoke-virtual {v0, v1, v2}, Landroid/content/pm/PackageManager;->resolveService(Landroid/content/Intent;I)Landroid/content/pm/ResolveInfo;
    move-result-object v2
    if-eqz v2, :none
    # return v2.serviceInfo.packageName
    iget-object v2, v2, Landroid/content/pm/ResolveInfo;->serviceInfo:Landroid/content/pm/ServiceInfo;
    iget-object v2, v2, Landroid/content/pm/ServiceInfo;->packageName:Ljava/lang/String;
    return-object v2
    :none
    # (a fresh null: the verifier types v2 here as a ResolveInfo, not a String)
    const/4 v2, 0x0
    return-object v2
.end method


# ServiceConnection.onServiceConnected(name, service): the browser's ICustomTabsService is bound;
# create a session on it and launch the Trusted Web Activity with it.
.method public onServiceConnected(Landroid/content/ComponentName;Landroid/os/IBinder;)V
    .locals 5
    # A reconnection after the launch (the browser restarted): nothing to do.
    iget-boolean v0, p0, Lpetal/dispatch/twa/LauncherActivity;->mLaunched:Z
    if-nez v0, :done
    # v0 = mSession = new Binder(): the session's callback, which is the session's identity
    new-instance v0, Landroid/os/Binder;
    invoke-direct {v0}, Landroid/os/Binder;-><init>()V
    iput-object v0, p0, Lpetal/dispatch/twa/LauncherActivity;->mSession:Landroid/os/IBinder;
    # v1 = data, v2 = reply
    invoke-static {}, Landroid/os/Parcel;->obtain()Landroid/os/Parcel;
    move-result-object v1
    invoke-static {}, Landroid/os/Parcel;->obtain()Landroid/os/Parcel;
    move-result-object v2
    :call_start
    # data.writeInterfaceToken("android.support.customtabs.ICustomTabsService")
    const-string v4, "android.support.customtabs.ICustomTabsService"
    invoke-virtual {v1, v4}, Landroid/os/Parcel;->writeInterfaceToken(Ljava/lang/String;)V
    # data.writeStrongBinder(callback)
    invoke-virtual {v1, v0}, Landroid/os/Parcel;->writeStrongBinder(Landroid/os/IBinder;)V
    # v3 = service.transact(3 = TRANSACTION_newSession, data, reply, flags 0): was it handled?
    const/4 v4, 0x3
    const/4 v3, 0x0
    invoke-interface {p2, v4, v1, v2, v3}, Landroid/os/IBinder;->transact(ILandroid/os/Parcel;Landroid/os/Parcel;I)Z
    move-result v3
    if-eqz v3, :call_end
    # reply.readException() rethrows what newSession threw; then v3 = its boolean (1 = created)
    invoke-virtual {v2}, Landroid/os/Parcel;->readException()V
    invoke-virtual {v2}, Landroid/os/Parcel;->readInt()I
    move-result v3
    :call_end
    .catch Ljava/lang/Exception; {:call_start .. :call_end} :call_failed
    goto :recycle
    :call_failed
    # RemoteException (the browser died) or whatever newSession threw: no session.
    const/4 v3, 0x0
    :recycle
    invoke-virtual {v1}, Landroid/os/Parcel;->recycle()V
    invoke-virtual {v2}, Landroid/os/Parcel;->recycle()V
    if-eqz v3, :no_session
    # launchTwa(callback)
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


# tabIntent(session): the Custom Tab intent, as CustomTabsIntent.Builder builds it:
# VIEW mUri in mProvider, EXTRA_SESSION = session (null for a plain Custom Tab), and the toolbar
# (and status bar) in the manifest's theme_color.
.method private tabIntent(Landroid/os/IBinder;)Landroid/content/Intent;
    .locals 4
    # v0 = new Intent(ACTION_VIEW, mUri)
    new-instance v0, Landroid/content/Intent;
    const-string v1, "android.intent.action.VIEW"
    iget-object v2, p0, Lpetal/dispatch/twa/LauncherActivity;->mUri:Landroid/net/Uri;
    invoke-direct {v0, v1, v2}, Landroid/content/Intent;-><init>(Ljava/lang/String;Landroid/net/Uri;)V
    # v0.setPackage(mProvider): the browser the session belongs to
    iget-object v1, p0, Lpetal/dispatch/twa/LauncherActivity;->mProvider:Ljava/lang/String;
    invoke-virtual {v0, v1}, Landroid/content/Intent;->setPackage(Ljava/lang/String;)Landroid/content/Intent;
    # Bundle b = new Bundle(); b.putBinder(EXTRA_SESSION, session); v0.putExtras(b)
    new-instance v1, Landroid/os/Bundle;
    invoke-direct {v1}, Landroid/os/Bundle;-><init>()V
    const-string v2, "android.support.customtabs.extra.SESSION"
    invoke-virtual {v1, v2, p1}, Landroid/os/Bundle;->putBinder(Ljava/lang/String;Landroid/os/IBinder;)V
    invoke-virtual {v0, v1}, Landroid/content/Intent;->putExtras(Landroid/os/Bundle;)Landroid/content/Intent;
    # v0.putExtra(EXTRA_TOOLBAR_COLOR, getResources().getColor(R.color.theme_color))
    const-string v1, "theme_color"
    const-string v2, "color"
    invoke-direct {p0, v1, v2}, Lpetal/dispatch/twa/LauncherActivity;->resourceId(Ljava/lang/String;Ljava/lang/String;)I
    move-result v1
    invoke-virtual {p0}, Landroid/content/Context;->getResources()Landroid/content/res/Resources;
    move-result-object v2
    invoke-virtual {v2, v1}, Landroid/content/res/Resources;->getColor(I)I
    move-result v1
    const-string v2, "android.support.customtabs.extra.TOOLBAR_COLOR"
    invoke-virtual {v0, v2, v1}, Landroid/content/Intent;->putExtra(Ljava/lang/String;I)Landroid/content/Intent;
    return-object v0
.end method


# launchTwa(session): the Custom Tab intent with the session and
# LAUNCH_AS_TRUSTED_WEB_ACTIVITY = true; the browser shows it without its toolbar once it has
# verified /.well-known/assetlinks.json. If it cannot be started: the default browser.
.method private launchTwa(Landroid/os/IBinder;)V
    .locals 3
    invoke-direct {p0, p1}, Lpetal/dispatch/twa/LauncherActivity;->tabIntent(Landroid/os/IBinder;)Landroid/content/Intent;
    move-result-object v0
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
    .locals 1
    const/4 v0, 0x0
    invoke-direct {p0, v0}, Lpetal/dispatch/twa/LauncherActivity;->tabIntent(Landroid/os/IBinder;)Landroid/content/Intent;
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
