"""A numba compilation staged for a test: the event numba fires around a real compile, wrapped around a sleep."""
import time
import types


def staged_compile(function, seconds):
    """Fire numba's ``numba:compile`` event naming ``function`` around a ``seconds`` sleep, as a cold cache would."""
    from numba.core import event as numba_event

    with numba_event.trigger_event("numba:compile", data={"dispatcher": types.SimpleNamespace(py_func=function)}):
        time.sleep(seconds)
