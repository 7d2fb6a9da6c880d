package dev.ironcore.maintenance.api.json;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads that can write the deepest JSON we read. Jackson reads trees without recursion, but
 * writing (and converting, which writes into a buffer) recurses once per nesting level; at {@link
 * JsonMappers#MAX_NESTING_DEPTH} levels that needs several MiB of stack, more than the JVM's 1 MiB
 * default. Every thread of ours that may serialise a stored object (webhook request threads,
 * controller workers, the fabric8 client's executor) is created here with {@link #STACK_BYTES}. The
 * size is reserved address space; the JVM commits stack pages only as they are used.
 */
public final class DeepStacks {
  /** Stack size of our threads: 64 MiB (about 4 KiB per JSON nesting level, with headroom). */
  public static final long STACK_BYTES = 64L * 1024 * 1024;

  private DeepStacks() {}

  /**
   * A new (not started) thread with {@link #STACK_BYTES} of stack.
   *
   * @param daemon whether the thread keeps the JVM alive
   */
  public static Thread newThread(Runnable task, String name, boolean daemon) {
    Thread t = new Thread(null, task, name, STACK_BYTES);
    t.setDaemon(daemon);
    return t;
  }

  /** A thread factory naming its threads {@code prefix-1}, {@code prefix-2}, ... (daemons). */
  public static ThreadFactory threadFactory(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return task -> newThread(task, prefix + "-" + n.incrementAndGet(), true);
  }
}
